/**
 * What both reports show, computed once from the saved record (summary.json + dialogues.jsonl):
 * the run's facts and the sections of sections/, each a small module over the one reading of the
 * record (report-reading.ts). `markdown-report.ts` and `html-report.ts` lay the sections out by
 * the kind of their parts.
 *
 * Everything but the worst dialogues' transcripts comes from compact per-dialogue rows
 * (metrics/dialogue-row.ts: numbers, no text), so a report of a long run does not hold its
 * dialogues in memory; the few records shown with text are read separately (see
 * {@link transcriptIds}).
 */
import type { DialogueRecord } from "../core/dialogue.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import type { Invocation } from "../record/manifest.js";
import type { SavedSummary } from "../record/summary-file.js";
import { typeOrder } from "./charts/chart-data.js";
import { cellValue } from "./format.js";
import { heuristicOf, readReport, type ReportInput, type ReportReading } from "./report-reading.js";
import { REPORT_SECTIONS, type ReportSection, type SectionPart } from "./sections/index.js";
import { transcriptIds } from "./worst-dialogues.js";

export type { ReportInput } from "./report-reading.js";
export type { ReportSection, SectionPart, Table } from "./sections/index.js";
export { transcriptIds, worstRows, WORST_PER_CONDITION } from "./worst-dialogues.js";

export interface ReportModel {
  title: string;
  /** The run's facts, above every section (label, value). */
  facts: Array<[string, string]>;
  /** In the page's order (sections/index.ts). */
  sections: ReportSection[];
}

/**
 * The report input of dialogues held in memory as records (an import, a test, a small run): their
 * rows, and the records of the dialogues the report shows with text, as a streamed read of
 * dialogues.jsonl would give them (the first scored record of an id).
 */
export function reportInputOfRecords(
  summary: SavedSummary,
  records: readonly DialogueRecord[],
  extra: Omit<ReportInput, "summary" | "rows" | "transcripts"> = {},
): ReportInput {
  const rows = records.map(dialogueRow);
  const wanted = transcriptIds(summary, rows);
  const transcripts = new Map<string, DialogueRecord>();
  for (const record of records)
    if (wanted.has(record.id) && record.status === "done" && !transcripts.has(record.id)) transcripts.set(record.id, record);
  return { ...extra, summary, rows, transcripts };
}

/**
 * A plug-in config as a few words: its kind and its id or model ("reference formulaic",
 * "llm qwen2.5-7b think"). Only these fields are shown; endpoints (URLs, key variable names) never are.
 */
export function describePlugin(value: unknown): string {
  if (value === null || typeof value !== "object") return cellValue(value);
  const fields = value as Record<string, unknown>;
  const endpoint = fields.endpoint !== null && typeof fields.endpoint === "object" ? (fields.endpoint as Record<string, unknown>) : {};
  const parts = [fields.kind, fields.id ?? fields.model ?? fields.name ?? endpoint.model].filter(
    (part): part is string => typeof part === "string",
  );
  if (fields.think === true) parts.push("think");
  if (fields.fused === true) parts.push("fused");
  return parts.length > 0 ? parts.join(" ") : "(unnamed plug-in)";
}

/** Who made the record, with what, when: run.json's invocations as report facts (none for a record without them). */
export function provenanceFacts(invocations: readonly Invocation[]): Array<[string, string]> {
  const last = invocations.at(-1);
  if (last === undefined) return [];
  const { provenance } = last;
  const commit =
    provenance.commit === null
      ? "not run from a git checkout"
      : `commit ${provenance.commit.slice(0, 12)}${provenance.commitDirty === true ? " with uncommitted changes" : ""}`;
  const facts: Array<[string, string]> = [
    ["made by", `AEB ${provenance.aebVersion} (${commit}), Node ${provenance.node}, ${provenance.platform}`],
  ];
  const first = invocations[0] as Invocation;
  facts.push([
    "invocations",
    `${invocations.length}: first ${first.command} at ${first.startedAt}; last ${last.command} at ${last.startedAt}, ${last.outcome}${last.endedAt === null ? "" : ` at ${last.endedAt}`}`,
  ]);
  const versions = [...new Set(invocations.map((invocation) => invocation.provenance.aebVersion))];
  if (versions.length > 1) facts.push(["AEB versions", versions.join(", ")]);
  return facts;
}

/** An ECS judge as the facts name it: a heuristic says what it is, a model judge whether it is the headline's. */
function describeJudge(reading: ReportReading, judge: string): string {
  const heuristic = heuristicOf(reading, judge);
  if (heuristic !== undefined) return `${judge} (${heuristic.label}: ${heuristic.description})`;
  return judge === reading.headlineJudge ? `${judge} (model judge, the headline ECS)` : `${judge} (model judge)`;
}

/** The run's facts: its size, seed, types, presets, judges, simulated user, provenance and agents. */
export function reportFacts(reading: ReportReading): Array<[string, string]> {
  const { summary, conditions, rows, judges, input } = reading;
  const simulatorHid = reading.offlineUser
    ? "the simulated user's verdicts (offline: the reward's own move test, not independent)"
    : "the simulated user's verdicts";
  const hidJudges = reading.hidColumns.map((column) => column.judge);
  const facts: Array<[string, string]> = [
    ["dialogues", `${summary.dialogues} (${summary.dialogues - summary.errors} scored, ${summary.errors} ended in error)`],
    ["conditions", conditions.map((condition) => condition.name).join(", ") || "none"],
    ["scenarios", String(summary.scenarios)],
    ["repeats per scenario", String(summary.repeats)],
    ["run seed", String(summary.seed)],
    ["trajectory types", typeOrder(conditions.flatMap((condition) => Object.keys(condition.byType))).join(", ") || "none"],
    ["presets", [...new Set(rows.map((row) => row.preset))].sort().join(", ") || "unknown"],
    ["ECS judges", judges.length === 0 ? "none (no ECS judge ran)" : judges.map((judge) => describeJudge(reading, judge)).join(", ")],
    ["HID", hidJudges.length === 0 ? simulatorHid : `${simulatorHid}; independent HID judges: ${hidJudges.join(", ")}`],
  ];
  if (input.setup?.simulator !== undefined) facts.push(["simulated user", describePlugin(input.setup.simulator)]);
  facts.push(...provenanceFacts(input.setup?.invocations ?? []));
  for (const condition of input.setup?.conditions ?? [])
    if (condition.agent !== undefined) facts.push([`agent of ${condition.name}`, describePlugin(condition.agent)]);
  return facts;
}

export function buildReportModel(input: ReportInput): ReportModel {
  const reading = readReport(input);
  return {
    title: input.title ?? "AEB run report",
    facts: reportFacts(reading),
    sections: REPORT_SECTIONS.map((section) => section(reading)),
  };
}

/** The section of this id; an unknown id is a caller's error. */
export function sectionOf(model: ReportModel, id: string): ReportSection {
  const section = model.sections.find((candidate) => candidate.id === id);
  if (section === undefined)
    throw new Error(`the report has no section ${id} (sections: ${model.sections.map((candidate) => candidate.id).join(", ")})`);
  return section;
}

/** The parts of one kind of a report section, in order (what the viewer and tests pick out). */
export function partsOf<K extends SectionPart["kind"]>(model: ReportModel, id: string, kind: K): Array<Extract<SectionPart, { kind: K }>> {
  return sectionOf(model, id)
    .lines.flat()
    .filter((part): part is Extract<SectionPart, { kind: K }> => part.kind === kind);
}
