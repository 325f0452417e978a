/**
 * The one reading of the saved record that every report section is made from: the validated
 * summary (record/summary-file.ts), the dialogues as rows in id order, and what several sections
 * share (which ECS judge is the headline, what the simulated user's HID is called).
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { ConditionSummary, EcsJudgeSummarySchema, HidJudgeSummarySchema } from "../analysis/summary-schema.js";
import type { z } from "zod";
import type { EcsJudgeKinds } from "../analysis/ecs-judges.js";
import { sortedById, type DialogueRow } from "../metrics/dialogue-row.js";
import type { RunSetup } from "../record/load-run.js";
import type { SavedSummary } from "../record/summary-file.js";
import { ecsJudgesOfRows, reportEcsKinds } from "./ecs-entries.js";
import { NO_MODEL_JUDGE, withCI } from "./format.js";
import { isOfflineSimulator, simulatorHidLabel } from "./hid-label.js";

/** Everything a report is made from: the saved record, as rows, with the few transcripts it shows. */
export interface ReportInput {
  summary: SavedSummary;
  /** Every line of dialogues.jsonl as a compact row (errored dialogues included: the report excludes and counts them). */
  rows: readonly DialogueRow[];
  /** The full records of (at least) the dialogues of report-model.ts's `transcriptIds`, by id. */
  transcripts: ReadonlyMap<string, DialogueRecord>;
  setup?: RunSetup;
  /** Problems met while reading the run directory (a torn last line...), shown with the notes. */
  readingNotes?: readonly string[];
  title?: string;
}

/** One judge's cells, per condition in the summary's order (null where the condition has none). */
export interface JudgeColumn<T> {
  judge: string;
  cells: Array<{ condition: string; cell: T | null }>;
}

export interface ReportReading {
  input: ReportInput;
  summary: SavedSummary;
  conditions: readonly ConditionSummary[];
  /** In id order, so that a report does not depend on the order in which dialogues finished. */
  rows: readonly DialogueRow[];
  scored: readonly DialogueRow[];
  /** ECS judges with a score on some dialogue (what the charts plot). */
  scoringJudges: string[];
  /** The judges summary.json names (`judges.ecs`), then those only the dialogues carry. */
  namedJudges: string[];
  judges: string[];
  /** Which judge gives the headline ECS (a model judge, or none) and which are heuristics. */
  ecsKinds: EcsJudgeKinds;
  headlineJudge: string | null;
  /** Whether summary.json says which judge is the headline (older ones do not). */
  hasHeadlineField: boolean;
  ecsColumns: Array<JudgeColumn<z.infer<typeof EcsJudgeSummarySchema>>>;
  hidColumns: Array<JudgeColumn<z.infer<typeof HidJudgeSummarySchema>>>;
  offlineUser: boolean;
  /** What the simulated user's HID is called here (hid-label.ts). */
  hidLabel: string;
}

/** Judges in the summary's order, then any other a condition has, each with its cells; judges no condition has are left out. */
function judgeColumns<T>(
  conditions: readonly ConditionSummary[],
  order: readonly string[],
  cellsOf: (condition: ConditionSummary) => Record<string, T>,
): Array<JudgeColumn<T>> {
  const found = [...new Set(conditions.flatMap((condition) => Object.keys(cellsOf(condition))))]
    .filter((judge) => !order.includes(judge))
    .sort();
  return [...order, ...found]
    .map((judge) => ({
      judge,
      cells: conditions.map((condition) => ({ condition: condition.name, cell: cellsOf(condition)[judge] ?? null })),
    }))
    .filter((column) => column.cells.some(({ cell }) => cell !== null));
}

export function readReport(input: ReportInput): ReportReading {
  const { summary } = input;
  const rows = sortedById(input.rows);
  const scored = rows.filter((row) => row.status === "done");
  const scoringJudges = ecsJudgesOfRows(scored);
  const namedJudges = [...summary.judges.ecs];
  const judges = [...namedJudges, ...scoringJudges.filter((judge) => !namedJudges.includes(judge))];
  const ecsKinds = reportEcsKinds(summary, rows, judges);
  return {
    input,
    summary,
    conditions: summary.conditions,
    rows,
    scored,
    scoringJudges,
    namedJudges,
    judges,
    ecsKinds,
    headlineJudge: ecsKinds.headline,
    hasHeadlineField: summary.judges.headlineEcs !== undefined,
    ecsColumns: judgeColumns(summary.conditions, summary.judges.ecs, (condition) => condition.ecsByJudge),
    hidColumns: judgeColumns(summary.conditions, summary.judges.hid, (condition) => condition.hidByJudge),
    offlineUser: isOfflineSimulator(input.setup?.simulator),
    hidLabel: simulatorHidLabel(input.setup?.simulator),
  };
}

/** The heuristic a judge is (the lexicon baseline), or undefined for a model judge. */
export function heuristicOf(reading: ReportReading, judge: string): EcsJudgeKinds["heuristics"][number] | undefined {
  return reading.ecsKinds.heuristics.find((heuristic) => heuristic.name === judge);
}

/** The headline ECS of the condition at `index` of the summary: a model judge's mean, never a heuristic's. */
export function headlineEcsCell(reading: ReportReading, index: number, condition: ConditionSummary): string {
  const { headlineJudge } = reading;
  if (headlineJudge === null) return reading.judges.length === 0 ? "n/a" : NO_MODEL_JUDGE;
  const column = reading.ecsColumns.find((candidate) => candidate.judge === headlineJudge);
  if (column !== undefined) {
    const cell = column.cells[index]?.cell ?? null;
    return cell === null ? "n/a" : withCI(cell.mean);
  }
  // A summary without per-judge cells: its `ecs` is the headline's only if it is the judge it names first.
  return reading.hasHeadlineField || headlineJudge === reading.namedJudges[0] ? withCI(condition.ecs) : "n/a";
}
