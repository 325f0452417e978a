import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import type { UsageTotals } from "../llm/chat-model.js";
import { transcriptIds, type RunSetup } from "../report/report-model.js";
import { writeReportFiles } from "../report/write-reports.js";
import { readRunTranscripts } from "./judgements.js";
import type { RunConfig } from "./run-config.js";
import { SUMMARY_FILE } from "./run-directory.js";
import { compareConditionRows, type Comparison, type LengthConfoundRow, type MetricReader } from "../analysis/compare-conditions.js";
import { summariseConditionRows, type ConditionSummary } from "../metrics/condition-summary.js";
import { dialogueRow, rowEcs, rowHid, sortedById, type DialogueRow } from "../metrics/dialogue-row.js";

/** `summary.json` (spec section 6). */
export interface RunSummary {
  format: 1;
  seed: number;
  repeats: number;
  /** ECS judges in order (the first gives each condition's `ecs`) and independent HID judges. */
  judges: { ecs: string[]; hid: string[] };
  scenarios: number;
  dialogues: number;
  errors: number;
  conditions: ConditionSummary[];
  comparisons: Comparison[];
  /** FS difference per pair of conditions with and without reply length as a covariate. */
  lengthConfound: LengthConfoundRow[];
  /** Token usage per model role, over every invocation on the run directory (LLM runs only). */
  usage?: Array<{ model: string; role: string; calls: number; cachedCalls: number; failedCalls: number; requests: number; retries: number; promptTokens: number; completionTokens: number }>;
  /** Plain-language caveats (too little data for a statistic, excluded dialogues...). */
  notes: string[];
}

/** Judge names found on the records (or rows), in order of first appearance (for runs judged after the fact). */
export function judgesOf(records: ReadonlyArray<{ ecs?: Readonly<Record<string, unknown>> | undefined; hid?: Readonly<Record<string, unknown>> | undefined }>): { ecs: string[]; hid: string[] } {
  const ecs = new Set<string>();
  const hid = new Set<string>();
  for (const record of records) {
    for (const name of Object.keys(record.ecs ?? {})) ecs.add(name);
    for (const name of Object.keys(record.hid ?? {})) hid.add(name);
  }
  return { ecs: [...ecs], hid: [...hid] };
}

export interface SummaryOptions {
  conditionOrder: readonly string[];
  seed: number;
  repeats: number;
  judges?: { ecs: string[]; hid: string[] };
}

/** Summarises a run from its records alone (never from live objects), in a fixed order. */
export function summariseRun(records: readonly DialogueRecord[], options: SummaryOptions): RunSummary {
  return summariseRows(records.map(dialogueRow), options);
}

/**
 * {@link summariseRun} from compact rows (metrics/dialogue-row.ts), which is what a run keeps in
 * memory: the same summary, byte for byte, without holding any dialogue's text.
 */
export function summariseRows(rows: readonly DialogueRow[], options: SummaryOptions): RunSummary {
  const sorted = sortedById(rows);
  const found = judgesOf(rows);
  const judges = {
    ecs: [...(options.judges?.ecs ?? []), ...found.ecs.filter((name) => !(options.judges?.ecs ?? []).includes(name))],
    hid: [...(options.judges?.hid ?? []), ...found.hid.filter((name) => !(options.judges?.hid ?? []).includes(name))],
  };
  const names = [...options.conditionOrder, ...new Set(sorted.map((record) => record.condition).filter((name) => !options.conditionOrder.includes(name)))];
  const conditions = names
    .map((name) => summariseConditionRows(name, sorted.filter((row) => row.condition === name), options.seed, judges))
    .filter((summary) => summary.n + summary.errors > 0);
  const notes: string[] = [];
  for (const condition of conditions) {
    if (condition.errors > 0) notes.push(`${condition.name}: ${condition.errors} dialogue(s) ended in error and are excluded from every statistic`);
    if (condition.n < 2) notes.push(`${condition.name}: only ${condition.n} scored dialogue(s); no interval is given`);
  }
  const metrics: Record<string, MetricReader<DialogueRow>> = { fs: (row) => row.metrics.fs, hid: (row) => row.metrics.hid };
  judges.ecs.forEach((judge, index) => (metrics[index === 0 ? "ecs" : `ecs:${judge}`] = (row) => rowEcs(row, judge)));
  for (const judge of judges.hid) metrics[`hid:${judge}`] = (row) => rowHid(row, judge);
  const compared = compareConditionRows(sorted, conditions.map((condition) => condition.name), metrics);
  notes.push(...compared.notes);
  return {
    format: 1,
    seed: options.seed,
    repeats: options.repeats,
    judges,
    scenarios: new Set(sorted.map((record) => record.scenarioId)).size,
    dialogues: sorted.length,
    errors: sorted.filter((record) => record.status === "error").length,
    conditions,
    comparisons: compared.comparisons,
    lengthConfound: compared.lengthConfound,
    notes,
  };
}

/** What of a run's config the summary and the reports use. */
export interface SummaryConfig {
  conditions: ReadonlyArray<{ name: string; agent?: unknown }>;
  seed: number;
  repeats: number;
  judges?: RunConfig["judges"];
  simulator?: unknown;
}

/**
 * Writes summary.json, then report.md and report.html, of a run directory. From records (held in
 * memory), or from compact rows: then the few dialogues the reports show with text are read back
 * from the directory's dialogues.jsonl in a streamed pass, so a long run never holds its dialogues.
 * Both give the same files.
 */
export async function writeRunSummary(
  outDir: string,
  dialogues: { records: readonly DialogueRecord[] } | { rows: readonly DialogueRow[] },
  config: SummaryConfig,
  usage?: UsageTotals[],
): Promise<RunSummary> {
  const rows = "rows" in dialogues ? dialogues.rows : dialogues.records.map(dialogueRow);
  const summary = summariseRows(rows, {
    conditionOrder: config.conditions.map((condition) => condition.name),
    seed: config.seed,
    repeats: config.repeats,
    ...(config.judges ? { judges: { ecs: config.judges.ecs.map((judge) => judge.name), hid: config.judges.hid.map((judge) => judge.name) } } : {}),
  });
  const withUsage = usage === undefined ? summary : { ...summary, usage };
  writeFileSync(join(outDir, SUMMARY_FILE), `${JSON.stringify(withUsage, null, 2)}\n`);
  const setup: RunSetup = { conditions: config.conditions, simulator: config.simulator };
  if ("records" in dialogues) {
    await writeReportFiles(outDir, { summary: withUsage, records: dialogues.records, setup });
  } else {
    await writeReportFiles(outDir, { summary: withUsage, rows, transcripts: readRunTranscripts(outDir, transcriptIds(withUsage, rows)), setup });
  }
  return withUsage;
}
