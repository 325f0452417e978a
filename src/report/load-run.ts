/**
 * Reads a run directory for `aeb report` and `aeb compare`: the report's only file-reading edge.
 * Problems that leave the rest usable (a torn last line, a summary that disagrees with the
 * dialogues) become reading notes shown in the report; problems that leave nothing to report
 * (no directory, no dialogues.jsonl, no dialogue) are errors that name the missing file.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { readRunRecords, readRunRows, readRunTranscripts } from "../runner/judgements.js";
import { USAGE_FILE } from "../runner/run-benchmark.js";
import { DIALOGUES_FILE, MANIFEST_FILE, SUMMARY_FILE } from "../runner/run-directory.js";
import { summariseRows, type RunSummary } from "../runner/summary.js";
import { transcriptIds, type RunSetup } from "./report-model.js";

const ManifestConfigSchema = z.looseObject({
  config: z.looseObject({
    seed: z.number().int().min(0).optional(),
    repeats: z.number().int().positive().optional(),
    simulator: z.unknown().optional(),
    conditions: z.array(z.looseObject({ name: z.string(), agent: z.unknown() })).optional(),
    judges: z.looseObject({ ecs: z.array(z.looseObject({ name: z.string() })).optional(), hid: z.array(z.looseObject({ name: z.string() })).optional() }).optional(),
  }),
});

const nullableNumber = z.number().nullable();
/** What the reports read from summary.json (NaN is written as null by JSON, so numbers may be null). */
const SummaryFileSchema = z.looseObject({
  format: z.literal(1),
  seed: z.number(),
  repeats: z.number(),
  scenarios: z.number(),
  dialogues: z.number(),
  errors: z.number(),
  notes: z.array(z.string()),
  comparisons: z.array(z.unknown()),
  conditions: z.array(
    z.looseObject({
      name: z.string(),
      n: z.number(),
      errors: z.number(),
      fs: z.looseObject({ mean: nullableNumber, ci95: z.tuple([z.number(), z.number()]).nullable() }),
      collapseRate: nullableNumber,
      collapseCi95: z.tuple([z.number(), z.number()]).nullable(),
      hid: z.looseObject({ mean: nullableNumber }).nullable(),
      ecs: z.looseObject({ mean: nullableNumber }).nullable(),
      meanReplyChars: nullableNumber,
      byType: z.record(z.string(), z.looseObject({ n: z.number(), fsMean: nullableNumber })),
    }),
  ),
});

export interface LoadedRun {
  dir: string;
  summary: RunSummary;
  /** Every readable dialogue as a compact row (metrics/dialogue-row.ts), errored ones included. */
  rows: DialogueRow[];
  /** The full records of the dialogues the reports show with text (report-model.ts transcriptIds), by id. */
  transcripts: Map<string, DialogueRecord>;
  setup?: RunSetup;
  /** Problems met while reading that the report states (and the CLI prints). */
  readingNotes: string[];
  /** Where the summary came from. */
  summarySource: "summary.json" | "recomputed";
}

export interface LoadRunOptions {
  /** Recompute the summary from dialogues.jsonl instead of reading summary.json. */
  recompute?: boolean;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunDirectoryError(`${path} is not valid JSON (${(error as Error).message}); run aeb report with --recompute to rebuild the summary from the dialogues`);
  }
}

/** The path of a run directory's dialogues.jsonl, or an error naming what is missing. */
function dialoguesFileOf(dir: string): string {
  if (!existsSync(dir)) throw new RunDirectoryError(`run directory ${dir} does not exist`);
  if (!statSync(dir).isDirectory()) throw new RunDirectoryError(`${dir} is not a directory (expected a run directory made by aeb run --out)`);
  const dialoguesPath = join(dir, DIALOGUES_FILE);
  if (!existsSync(dialoguesPath)) {
    throw new RunDirectoryError(`${dialoguesPath} is missing: ${dir} is not a run directory, or its run has not finished a dialogue yet (make one with aeb run --out ${dir})`);
  }
  return dialoguesPath;
}

/** The reading notes of dialogues.jsonl, or an error when it holds no dialogue. */
function dialoguesReadingNotes(dialoguesPath: string, count: number, tornTail: boolean): string[] {
  const readingNotes: string[] = [];
  if (tornTail) readingNotes.push(`${DIALOGUES_FILE} ends with a torn line (an interrupted write); it was left out and the ${count} complete dialogue(s) before it were used.`);
  if (count === 0) throw new RunDirectoryError(`${dialoguesPath} holds no dialogue${tornTail ? " (only a torn line)" : ""}; nothing to report`);
  return readingNotes;
}

/** The dialogues of a run directory with the judgements made later (`aeb judge`) merged in, or an error naming what is missing. */
export function loadRunRecords(dir: string): { records: DialogueRecord[]; readingNotes: string[] } {
  const dialoguesPath = dialoguesFileOf(dir);
  // judgements.jsonl (aeb judge) is merged in, so a run judged after the fact reports its ECS.
  const { records, tornTail } = readRunRecords(dir);
  return { records, readingNotes: dialoguesReadingNotes(dialoguesPath, records.length, tornTail) };
}

/** {@link loadRunRecords} as compact rows, read in one streamed pass: what a report needs of every dialogue. */
export function loadRunRows(dir: string): { rows: DialogueRow[]; readingNotes: string[] } {
  const dialoguesPath = dialoguesFileOf(dir);
  const { rows, tornTail } = readRunRows(dir);
  return { rows, readingNotes: dialoguesReadingNotes(dialoguesPath, rows.length, tornTail) };
}

/**
 * Reads summary.json (or recomputes it), dialogues.jsonl and run.json of a run directory.
 * dialogues.jsonl is read in two streamed passes, as `aeb run` writes its reports: one for the
 * rows of every dialogue, one for the records of the few the reports show with text.
 */
export function loadRunForReport(dir: string, options: LoadRunOptions = {}): LoadedRun {
  const { rows, readingNotes } = loadRunRows(dir);

  let setup: RunSetup | undefined;
  let manifestSeed: number | undefined;
  let manifestRepeats: number | undefined;
  let manifestJudges: { ecs: string[]; hid: string[] } | undefined;
  const manifestPath = join(dir, MANIFEST_FILE);
  if (existsSync(manifestPath)) {
    let raw: unknown = undefined;
    try {
      raw = JSON.parse(readFileSync(manifestPath, "utf8"));
    } catch {
      readingNotes.push(`${MANIFEST_FILE} is not valid JSON; the run's setup is not shown.`);
    }
    const manifest = raw === undefined ? undefined : ManifestConfigSchema.safeParse(raw);
    if (manifest?.success) {
      const config = manifest.data.config;
      setup = { conditions: config.conditions, simulator: config.simulator };
      manifestSeed = config.seed;
      manifestRepeats = config.repeats;
      if (config.judges !== undefined) {
        manifestJudges = { ecs: (config.judges.ecs ?? []).map((judge) => judge.name), hid: (config.judges.hid ?? []).map((judge) => judge.name) };
      }
    } else if (manifest !== undefined) {
      readingNotes.push(`${MANIFEST_FILE} does not hold a run config; the run's setup is not shown.`);
    }
  }

  const summaryPath = join(dir, SUMMARY_FILE);
  let summary: RunSummary | undefined;
  if (!options.recompute && existsSync(summaryPath)) {
    const parsed = SummaryFileSchema.safeParse(readJson(summaryPath));
    if (!parsed.success) {
      throw new RunDirectoryError(`${summaryPath} is not a run summary:\n${formatIssues(parsed.error.issues)}\n(run aeb report with --recompute to rebuild it from the dialogues)`);
    }
    summary = parsed.data as unknown as RunSummary;
    if (summary.dialogues !== rows.length) {
      readingNotes.push(
        `${SUMMARY_FILE} counts ${summary.dialogues} dialogue(s) but ${DIALOGUES_FILE} has ${rows.length} readable; the tables come from ${SUMMARY_FILE}, the charts and transcripts from ${DIALOGUES_FILE} (aeb report --recompute makes them agree).`,
      );
    }
  }
  if (summary !== undefined) return { dir, summary, rows, transcripts: readRunTranscripts(dir, transcriptIds(summary, rows)), setup, readingNotes, summarySource: "summary.json" };

  if (!options.recompute) readingNotes.push(`${SUMMARY_FILE} is missing; the summary was recomputed from ${DIALOGUES_FILE}.`);
  const seed = manifestSeed ?? 1;
  if (manifestSeed === undefined) readingNotes.push(`no run seed in ${MANIFEST_FILE}; the bootstrap intervals were recomputed with seed 1.`);
  const recomputed = summariseRows(rows, {
    conditionOrder: setup?.conditions?.map((condition) => condition.name) ?? [...new Set(rows.map((row) => row.condition))],
    seed,
    repeats: manifestRepeats ?? rows.reduce((most, row) => Math.max(most, row.repeat), 0) + 1,
    ...(manifestJudges === undefined ? {} : { judges: manifestJudges }),
  });
  const usage = readUsage(dir, readingNotes);
  const withUsage = usage === undefined ? recomputed : { ...recomputed, usage };
  return { dir, summary: withUsage, rows, transcripts: readRunTranscripts(dir, transcriptIds(withUsage, rows)), setup, readingNotes, summarySource: "recomputed" };
}

/** usage.json of an LLM run (token usage per model role), as `aeb run` adds it to the summary; undefined when there is none. */
function readUsage(dir: string, readingNotes: string[]): RunSummary["usage"] {
  const path = join(dir, USAGE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (Array.isArray(value)) return value as NonNullable<RunSummary["usage"]>;
  } catch {
    // Reported below.
  }
  readingNotes.push(`${USAGE_FILE} is not a list of token counts; the recomputed summary has no token usage.`);
  return undefined;
}

/** The run's condition order (run.json's config, else summary.json), for stable tables; empty when neither says. */
export function readConditionOrder(dir: string): string[] {
  for (const [file, pick] of [
    [MANIFEST_FILE, (value: unknown) => (value as { config?: { conditions?: Array<{ name?: unknown }> } }).config?.conditions],
    [SUMMARY_FILE, (value: unknown) => (value as { conditions?: Array<{ name?: unknown }> }).conditions],
  ] as const) {
    try {
      const list = pick(JSON.parse(readFileSync(join(dir, file), "utf8")));
      if (Array.isArray(list)) return list.map((item) => item.name).filter((name): name is string => typeof name === "string");
    } catch {
      // Missing or unreadable: try the next source.
    }
  }
  return [];
}
