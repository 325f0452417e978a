/**
 * Reads a finished (or interrupted) run directory for reports, comparisons and re-analysis.
 * Problems that leave the rest usable (a torn last line, a summary that disagrees with the
 * dialogues) become reading notes shown with the results; problems that leave nothing to read (no
 * directory, no dialogues.jsonl, no dialogue) are errors that name the missing file.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { summariseRun } from "../analysis/run-summary.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { readDialogueRecords, readDialogueRows } from "./dialogue-reader.js";
import { DIALOGUES_FILE, MANIFEST_FILE, SUMMARY_FILE } from "./files.js";
import { manifestConfig, readManifest, type Invocation } from "./manifest.js";
import { readSummaryFile, savedSummary, type SavedSummary } from "./summary-file.js";
import { readUsageTotals } from "./usage-log.js";

/** What the results of a run need to know of its config (run.json's `config`). */
const RecordedConfigSchema = z.looseObject({
  seed: z.number().int().min(0).optional(),
  repeats: z.number().int().positive().optional(),
  simulator: z.unknown().optional(),
  conditions: z.array(z.looseObject({ name: z.string(), agent: z.unknown() })).optional(),
  judges: z
    .looseObject({
      ecs: z.array(z.looseObject({ name: z.string() })).optional(),
      hid: z.array(z.looseObject({ name: z.string() })).optional(),
    })
    .optional(),
  report: z.looseObject({ reference: z.string().optional() }).optional(),
});
export type RecordedConfig = z.infer<typeof RecordedConfigSchema>;

/** How the run was set up, as far as its record tells. */
export interface RunSetup {
  conditions?: ReadonlyArray<{ name: string; agent?: unknown }>;
  simulator?: unknown;
  /** Who made the record, with what, when (run.json's invocations), oldest first. */
  invocations?: readonly Invocation[];
}

export interface LoadedRun {
  dir: string;
  /** Validated, as summary.json holds it (read from the file, or recomputed and put in that form). */
  summary: SavedSummary;
  /** Every readable dialogue as a compact row (metrics/dialogue-row.ts), errored ones included, judgements merged. */
  rows: DialogueRow[];
  setup?: RunSetup;
  /** Problems met while reading that the results should state (and the CLI prints). */
  readingNotes: string[];
  /** Where the summary came from. */
  summarySource: "summary.json" | "recomputed";
}

/** The path of a run directory's dialogues.jsonl, or an error naming what is missing. */
function dialoguesFileOf(dir: string): string {
  if (!existsSync(dir)) throw new RunDirectoryError(`run directory ${dir} does not exist`);
  if (!statSync(dir).isDirectory())
    throw new RunDirectoryError(`${dir} is not a directory (expected a run directory made by aeb run --out)`);
  const dialoguesPath = join(dir, DIALOGUES_FILE);
  if (!existsSync(dialoguesPath)) {
    throw new RunDirectoryError(
      `${dialoguesPath} is missing: ${dir} is not a run directory, or its run has not finished a dialogue yet (make one with aeb run --out ${dir})`,
    );
  }
  return dialoguesPath;
}

/** The reading notes of dialogues.jsonl, or an error when it holds no dialogue. */
function dialoguesReadingNotes(dialoguesPath: string, count: number, tornTail: boolean): string[] {
  const readingNotes: string[] = [];
  if (tornTail)
    readingNotes.push(
      `${DIALOGUES_FILE} ends with a torn line (an interrupted write); it was left out and the ${count} complete dialogue(s) before it were used.`,
    );
  if (count === 0)
    throw new RunDirectoryError(`${dialoguesPath} holds no dialogue${tornTail ? " (only a torn line)" : ""}; nothing to report`);
  return readingNotes;
}

/** Every dialogue of a run directory as a full record (judgements merged), or an error naming what is missing. For comparisons of small runs. */
export function loadRunRecords(dir: string): { records: DialogueRecord[]; readingNotes: string[] } {
  const dialoguesPath = dialoguesFileOf(dir);
  const { records, tornTail } = readDialogueRecords(dir);
  return { records, readingNotes: dialoguesReadingNotes(dialoguesPath, records.length, tornTail) };
}

/** The config a run directory's run.json records, as far as results need it; notes say what could not be read. */
export function readRecordedConfig(
  dir: string,
  readingNotes: string[] = [],
): { config: RecordedConfig | undefined; invocations: Invocation[] } {
  if (!existsSync(join(dir, MANIFEST_FILE))) return { config: undefined, invocations: [] };
  let onDisk: ReturnType<typeof readManifest>;
  try {
    onDisk = readManifest(dir);
  } catch {
    readingNotes.push(`${MANIFEST_FILE} cannot be read; the run's setup is not shown.`);
    return { config: undefined, invocations: [] };
  }
  const parsed = RecordedConfigSchema.safeParse(manifestConfig(onDisk));
  if (!parsed.success) readingNotes.push(`${MANIFEST_FILE} does not hold a run config; the run's setup is not shown.`);
  return { config: parsed.success ? parsed.data : undefined, invocations: onDisk.kind === "current" ? onDisk.manifest.invocations : [] };
}

/** The run's config (as far as results need it) and its setup for reports, from run.json. */
export function readRunSetup(
  dir: string,
  readingNotes: string[] = [],
): { config: RecordedConfig | undefined; setup: RunSetup | undefined } {
  const { config, invocations } = readRecordedConfig(dir, readingNotes);
  if (config === undefined && invocations.length === 0) return { config, setup: undefined };
  return {
    config,
    setup: {
      ...(config?.conditions !== undefined ? { conditions: config.conditions } : {}),
      ...(config?.simulator !== undefined ? { simulator: config.simulator } : {}),
      ...(invocations.length > 0 ? { invocations } : {}),
    },
  };
}

/** The run seed (run.json's config, else summary.json); null when neither records one. */
export function readRunSeed(dir: string): number | null {
  const { config } = readRecordedConfig(dir);
  if (config?.seed !== undefined) return config.seed;
  try {
    return readSummaryFile(dir)?.seed ?? null;
  } catch {
    return null;
  }
}

/** The run's condition order (run.json's config, else summary.json), for stable tables; empty when neither says. */
export function readConditionOrder(dir: string): string[] {
  const { config } = readRecordedConfig(dir);
  if (config?.conditions !== undefined) return config.conditions.map((condition) => condition.name);
  try {
    return readSummaryFile(dir)?.conditions.map((condition) => condition.name) ?? [];
  } catch {
    return [];
  }
}

/**
 * Reads a run directory: every dialogue as a row (one streamed pass), the summary from
 * summary.json (or recomputed from the rows: on request, or when there is none), run.json's setup
 * and provenance, and the token usage the directory recorded.
 */
export function loadRun(dir: string, options: { recompute?: boolean; reference?: string } = {}): LoadedRun {
  dialoguesFileOf(dir);
  return loadRunFromRows(dir, readDialogueRows(dir), options);
}

/**
 * {@link loadRun} for a caller that has already read the rows of dialogues.jsonl in a pass of its
 * own (the viewer reads the rows and its index in one pass): the summary, setup and notes.
 */
export function loadRunFromRows(
  dir: string,
  read: { rows: DialogueRow[]; tornTail: boolean },
  options: { recompute?: boolean; reference?: string } = {},
): LoadedRun {
  const dialoguesPath = dialoguesFileOf(dir);
  const { rows, tornTail } = read;
  const readingNotes = dialoguesReadingNotes(dialoguesPath, rows.length, tornTail);
  const { config, setup } = readRunSetup(dir, readingNotes);

  if (options.recompute !== true) {
    const summary = readSummaryFile(dir);
    if (summary !== undefined) {
      if (summary.dialogues !== rows.length) {
        readingNotes.push(
          `${SUMMARY_FILE} counts ${summary.dialogues} dialogue(s) but ${DIALOGUES_FILE} has ${rows.length} readable; the tables come from ${SUMMARY_FILE}, the charts and transcripts from ${DIALOGUES_FILE} (aeb report --recompute makes them agree).`,
        );
      }
      return { dir, summary, rows, ...(setup !== undefined ? { setup } : {}), readingNotes, summarySource: "summary.json" };
    }
    readingNotes.push(`${SUMMARY_FILE} is missing; the summary was recomputed from ${DIALOGUES_FILE}.`);
  }
  const seed = config?.seed ?? 1;
  if (config?.seed === undefined)
    readingNotes.push(`no run seed in ${MANIFEST_FILE}; the bootstrap intervals were recomputed with seed 1.`);
  let usage: RunSummary["usage"];
  try {
    usage = readUsageTotals(dir);
  } catch (error) {
    readingNotes.push(`${(error as Error).message}; the recomputed summary has no token usage.`);
  }
  const summary = savedSummary(
    summariseRun(rows, {
      conditionOrder: config?.conditions?.map((condition) => condition.name) ?? [...new Set(rows.map((row) => row.condition))],
      seed,
      repeats: config?.repeats ?? rows.reduce((most, row) => Math.max(most, row.repeat), 0) + 1,
      ...(config?.judges !== undefined
        ? {
            judges: {
              ecs: (config.judges.ecs ?? []).map((judge) => judge.name),
              hid: (config.judges.hid ?? []).map((judge) => judge.name),
            },
          }
        : {}),
      ...(usage !== undefined ? { usage } : {}),
      ...((options.reference ?? config?.report?.reference) !== undefined
        ? { reference: (options.reference ?? config?.report?.reference) as string }
        : {}),
    }),
  );
  return { dir, summary, rows, ...(setup !== undefined ? { setup } : {}), readingNotes, summarySource: "recomputed" };
}
