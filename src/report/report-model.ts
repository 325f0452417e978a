/**
 * What both reports show, computed once from the saved record (summary.json + dialogues.jsonl):
 * the tables as text cells, the notes and the worst dialogues. `markdown-report.ts` and
 * `html-report.ts` only lay this out.
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { ConditionSummary } from "../metrics/condition-summary.js";
import type { RunSummary } from "../runner/summary.js";
import { typeOrder } from "./charts/chart-data.js";
import { ecsJudges, readEcs } from "./ecs.js";
import { cellValue, fixed, formatP, percent, withCI } from "./format.js";
import { comparisonsByMetric, summarySections } from "./summary-sections.js";

/** How the run was set up, as far as the saved record tells (run.json's config, or the run's own config). */
export interface RunSetup {
  conditions?: ReadonlyArray<{ name: string; agent: unknown }>;
  simulator?: unknown;
}

/** Everything a report is made from. */
export interface ReportInput {
  summary: RunSummary;
  /** Every line of dialogues.jsonl (errored dialogues included: the report excludes and counts them). */
  records: readonly DialogueRecord[];
  setup?: RunSetup;
  /** Problems met while reading the run directory (a torn last line...), shown with the notes. */
  readingNotes?: readonly string[];
  title?: string;
}

export interface Table {
  header: string[];
  rows: string[][];
}

export interface ReportModel {
  title: string;
  facts: Array<[string, string]>;
  headline: Table;
  /** Sentences under the headline table (what n/a means...). */
  headlineNotes: string[];
  byType: Table;
  comparisons: Array<{ metric: string; table: Table }>;
  /** Said instead of comparison tables when there are none. */
  comparisonsNote: string | null;
  lengthConfound: Table | null;
  lengthConfoundNote: string | null;
  notes: string[];
  worst: Array<{ condition: string; dialogues: DialogueRecord[] }>;
  ecsJudges: string[];
}

/**
 * The input with its dialogues in id order, so that a report does not depend on the order in
 * which dialogues finished (and were appended to dialogues.jsonl).
 */
export function inIdOrder(input: ReportInput): ReportInput {
  return { ...input, records: [...input.records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
}

/** How many of the lowest-FS dialogues per condition the reports print. */
export const WORST_PER_CONDITION = 3;

/** A plug-in config as a few words: its kind and its id or model ("reference formulaic"). */
export function describePlugin(value: unknown): string {
  if (value === null || typeof value !== "object") return cellValue(value);
  const fields = value as Record<string, unknown>;
  const parts = [fields.kind, fields.id ?? fields.model ?? fields.name].filter((part): part is string => typeof part === "string");
  return parts.length > 0 ? parts.join(" ") : JSON.stringify(value);
}

function collapseCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  const ci = condition.collapseCi95;
  return ci === null ? percent(condition.collapseRate) : `${percent(condition.collapseRate)} [${percent(ci[0])}, ${percent(ci[1])}]`;
}

function fsCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  if (condition.fs.ci95 === null) return `${fixed(condition.fs.mean)} (n=${condition.n}: no CI)`;
  return withCI(condition.fs);
}

/** The lowest-FS scored dialogues of each condition (ties broken by id), worst first. */
export function worstDialogues(records: readonly DialogueRecord[], conditions: readonly string[], count = WORST_PER_CONDITION): ReportModel["worst"] {
  return conditions
    .map((condition) => ({
      condition,
      dialogues: records
        .filter((record) => record.condition === condition && record.status === "done")
        .sort((a, b) => a.final.fs - b.final.fs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, count),
    }))
    .filter((group) => group.dialogues.length > 0);
}

/** "1 comparison entry", "3 comparison entries". */
function entries(count: number, kind: string): string {
  return `${count} ${kind} entr${count === 1 ? "y" : "ies"}`;
}

export function buildReportModel(input: ReportInput): ReportModel {
  const { summary, records } = input;
  const conditions = summary.conditions;
  const scored = records.filter((record) => record.status === "done");
  const judges = ecsJudges(scored);
  const presets = [...new Set(records.map((record) => record.preset))].sort();
  const types = typeOrder(conditions.flatMap((condition) => Object.keys(condition.byType)));

  const facts: Array<[string, string]> = [
    ["dialogues", `${summary.dialogues} (${summary.dialogues - summary.errors} scored, ${summary.errors} ended in error)`],
    ["conditions", conditions.map((condition) => condition.name).join(", ") || "none"],
    ["scenarios", String(summary.scenarios)],
    ["repeats per scenario", String(summary.repeats)],
    ["run seed", String(summary.seed)],
    ["trajectory types", types.join(", ") || "none"],
    ["presets", presets.join(", ") || "unknown"],
    ["ECS judges", judges.length > 0 ? judges.join(", ") : "none (no ECS judge ran)"],
  ];
  if (input.setup?.simulator !== undefined) facts.push(["simulated user", describePlugin(input.setup.simulator)]);
  for (const condition of input.setup?.conditions ?? []) facts.push([`agent of ${condition.name}`, describePlugin(condition.agent)]);

  const headlineNotes: string[] = [];
  if (conditions.every((condition) => condition.ecs === null)) {
    headlineNotes.push(
      judges.length > 0
        ? `ECS is n/a: summary.json has no ECS means, although the dialogues carry scores from ${judges.join(", ")} (the charts use them).`
        : "ECS is n/a: no ECS judge ran.",
    );
  }
  if (conditions.some((condition) => condition.n > 0 && condition.fs.ci95 === null)) {
    headlineNotes.push("A condition with fewer than two scored dialogues has no confidence interval.");
  }

  const sections = summarySections(summary);
  const comparisonHeader = ["metric", "test", "a", "b", "n", "p", "Holm p", "r"];
  const comparisons = comparisonsByMetric(sections.comparisons).map(({ metric, rows }) => ({
    metric,
    table: {
      header: comparisonHeader,
      rows: rows.map((row) => [row.metric, row.test, row.a, row.b, cellValue(row.n), formatP(row.p), formatP(row.pHolm), fixed(row.r)]),
    },
  }));
  let comparisonsNote: string | null = null;
  if (comparisons.length === 0) comparisonsNote = "No comparisons: summary.json lists none.";
  if (sections.unreadableComparisons > 0) {
    comparisonsNote = `${comparisonsNote ?? ""} ${entries(sections.unreadableComparisons, "comparison")} could not be read (missing metric, test, a, b or p) and ${sections.unreadableComparisons === 1 ? "is" : "are"} not shown.`.trim();
  }

  let lengthConfound: Table | null = null;
  let lengthConfoundNote: string | null = null;
  if (sections.lengthConfound === null) {
    lengthConfoundNote = "summary.json has no length-confound analysis, so whether reply length explains the FS differences is not tested here (see the reply-length chart).";
  } else if (sections.lengthConfound.length === 0) {
    lengthConfoundNote = "The length-confound analysis in summary.json is empty (no pair of conditions to test).";
  } else {
    lengthConfound = {
      header: ["a", "b", "condition coef.", "p", "coef. adjusted for length", "p adjusted", "rho(length, FS) in a", "rho(length, FS) in b"],
      rows: sections.lengthConfound.map((row) => [
        row.a,
        row.b,
        fixed(row.coefficient),
        formatP(row.p),
        fixed(row.coefficientAdjusted),
        formatP(row.pAdjusted),
        fixed(row.rhoA),
        fixed(row.rhoB),
      ]),
    };
  }
  if (sections.unreadableLengthConfound > 0) {
    lengthConfoundNote = `${lengthConfoundNote ?? ""} ${entries(sections.unreadableLengthConfound, "length-confound")} could not be read (missing a, b, coefficient or p) and ${sections.unreadableLengthConfound === 1 ? "is" : "are"} not shown.`.trim();
  }

  const unreadableEcs = scored.reduce((sum, record) => sum + readEcs(record).unreadable, 0);
  const notes = [...(input.readingNotes ?? []), ...summary.notes];
  if (unreadableEcs > 0) notes.push(`${unreadableEcs} ECS entr${unreadableEcs === 1 ? "y has" : "ies have"} no numeric score and are left out of the charts.`);
  const conditionNames = conditions.map((condition) => condition.name);
  const orphans = [...new Set(records.map((record) => record.condition))].filter((name) => !conditionNames.includes(name));
  if (orphans.length > 0) notes.push(`dialogues.jsonl has condition(s) that summary.json does not: ${orphans.join(", ")} (they appear in the charts only).`);

  return {
    title: input.title ?? "AEB run report",
    facts,
    headline: {
      header: ["condition", "n", "FS [95% CI]", "collapse [95% CI]", "HID", "ECS", "reply chars", "errors"],
      rows: conditions.map((condition) => [
        condition.name,
        String(condition.n),
        fsCell(condition),
        collapseCell(condition),
        withCI(condition.hid),
        withCI(condition.ecs),
        fixed(condition.meanReplyChars, 0),
        String(condition.errors),
      ]),
    },
    headlineNotes,
    byType: {
      header: ["condition", ...types],
      rows: conditions.map((condition) => [
        condition.name,
        ...types.map((type) => {
          const cell = condition.byType[type];
          return cell === undefined ? "n/a" : `${fixed(cell.fsMean)} (n=${cell.n})`;
        }),
      ]),
    },
    comparisons,
    comparisonsNote,
    lengthConfound,
    lengthConfoundNote,
    notes,
    worst: worstDialogues(records, [...conditionNames, ...orphans]),
    ecsJudges: judges,
  };
}
