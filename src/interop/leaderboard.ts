/**
 * A SAGE-style leaderboard over AEB results directories and SAGE result files: per condition the
 * Sentient score (mean final emotion), successes and failures as SAGE counts them, beside FS,
 * collapse rate and ECS as this project's metrics compute them.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { summariseCondition } from "../analysis/condition-summary.js";
import { judgesOf } from "../analysis/run-summary.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { AebError } from "../core/errors.js";
import { mean } from "../metrics/dialogue-metrics.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import { readDialogueRecords } from "../record/dialogue-reader.js";
import { DIALOGUES_FILE } from "../record/files.js";
import { fixed, markdownTable, percent, textTable } from "../report/format.js";
import { withOfflineEcs } from "./offline-ecs.js";
import { readSageResultFile, type SkippedLine } from "./sage-results.js";

/** SAGE's success: final emotion at or above this. */
export const SAGE_SUCCESS_AT = 100;
/** SAGE's failure: final emotion below this. */
export const SAGE_FAILURE_BELOW = 10;
/** What the ECS column says until a judge exists. */
export const ECS_NOT_JUDGED = "n/a (no turn judged)";

export interface LeaderboardRow {
  condition: string;
  /** The directory or file the row comes from. */
  source: string;
  /** Scored dialogues (status `done`). */
  dialogues: number;
  /** Dialogues that ended in error, left out of every number. */
  errors: number;
  /** Mean final emotion (0-100). */
  sentient: number;
  successes: number;
  failures: number;
  /** This project's FS: mean final emotion / 100. */
  fs: number | null;
  /** This project's collapse rate: dialogues that ended in `collapse` under their preset. */
  collapseRate: number | null;
  /** Mean ECS where a judge scored the dialogues, else null. */
  ecs: number | null;
}

export interface LeaderboardSource {
  source: string;
  records: DialogueRecord[];
  /** Lines of a SAGE result file that did not parse (they are left out and counted). */
  skipped: SkippedLine[];
}

/**
 * Reads one leaderboard input: a results directory (its `dialogues.jsonl`), a `dialogues.jsonl`
 * file, or a SAGE result file (any other file), which becomes one condition named after it.
 */
export function readLeaderboardSource(path: string): LeaderboardSource {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new AebError(`${path} does not exist`);
  if (stat.isDirectory()) {
    if (!existsSync(join(path, DIALOGUES_FILE))) throw new AebError(`${path} has no ${DIALOGUES_FILE} (give a results directory of \`aeb run\` or \`aeb import\`, or a SAGE result file)`);
    return { source: path, records: readDialogueRecords(path).records, skipped: [] };
  }
  if (basename(path) === DIALOGUES_FILE) return { source: path, records: readDialogueRecords(dirname(path)).records, skipped: [] };
  const file = readSageResultFile(path);
  return { source: path, records: file.records, skipped: file.skipped };
}

/** One row per condition of the records, in order of first appearance. */
export function leaderboardRows(records: readonly DialogueRecord[], source: string): LeaderboardRow[] {
  const conditions = [...new Set(records.map((record) => record.condition))];
  return conditions.map((condition) => {
    // In id order, as summary.json sums them, so FS matches the run's report to the last digit.
    const own = records.filter((record) => record.condition === condition).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const scored = own.filter((record) => record.status === "done");
    const finals = scored.map((record) => record.final.emotion);
    const summary = summariseCondition(condition, own.map(dialogueRow), 1, judgesOf(own));
    return {
      condition,
      source,
      dialogues: scored.length,
      errors: own.length - scored.length,
      sentient: mean(finals),
      successes: finals.filter((emotion) => emotion >= SAGE_SUCCESS_AT).length,
      failures: finals.filter((emotion) => emotion < SAGE_FAILURE_BELOW).length,
      fs: summary.fs.mean,
      collapseRate: summary.collapseRate,
      ecs: summary.ecs?.mean ?? null,
    };
  });
}

/** Rows of every source, best Sentient score first; names that repeat across sources get their source. */
export async function buildLeaderboard(sources: readonly LeaderboardSource[]): Promise<LeaderboardRow[]> {
  const rows: LeaderboardRow[] = [];
  // ECS by this project's metrics: the run's own first ECS judge, else the offline lexicon judge.
  for (const source of sources) rows.push(...leaderboardRows(await withOfflineEcs(source.records), source.source));
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.condition, (counts.get(row.condition) ?? 0) + 1);
  const score = (row: LeaderboardRow) => (Number.isNaN(row.sentient) ? -1 : row.sentient);
  return rows
    .map((row) => ((counts.get(row.condition) ?? 0) > 1 ? { ...row, condition: `${row.condition} (${row.source})` } : row))
    .sort((a, b) => score(b) - score(a) || a.condition.localeCompare(b.condition));
}

export const LEADERBOARD_HEADER = ["condition", "dialogues", "Sentient", "successes", "failures", "FS", "collapse", "ECS"];

function cells(row: LeaderboardRow): string[] {
  return [
    row.condition,
    row.errors > 0 ? `${row.dialogues} (+${row.errors} errors)` : String(row.dialogues),
    fixed(row.sentient, 2),
    String(row.successes),
    String(row.failures),
    fixed(row.fs, 3),
    percent(row.collapseRate),
    row.ecs === null ? ECS_NOT_JUDGED : fixed(row.ecs, 3),
  ];
}

export const LEADERBOARD_NOTES = [
  `Sentient: mean final emotion (0-100); successes: final >= ${SAGE_SUCCESS_AT}; failures: final < ${SAGE_FAILURE_BELOW} (SAGE's definitions).`,
  "FS: mean final emotion / 100; collapse: share of dialogues that ended in collapse under their preset (this project's metrics).",
  "ECS: by the results' first ECS judge where they have one, else by the offline lexicon judge (a heuristic; see docs/models.md).",
];

export function renderLeaderboard(rows: readonly LeaderboardRow[], format: "text" | "markdown" | "json"): string {
  if (format === "json") return JSON.stringify(rows, null, 2);
  const table = format === "markdown" ? markdownTable(LEADERBOARD_HEADER, rows.map(cells)) : textTable(LEADERBOARD_HEADER, rows.map(cells));
  return `${table}\n\n${LEADERBOARD_NOTES.join("\n")}`;
}
