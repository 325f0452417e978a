import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic-file.js";
import { join } from "node:path";
import { RunSummarySchema, type RunSummary } from "../analysis/summary-schema.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { SUMMARY_FILE } from "./files.js";

/**
 * Writes summary.json (atomically: a temporary file renamed over it). The summary is written as
 * JSON writes it: an undefined number (NaN) becomes null, as its schema says.
 */
export function writeSummaryFile(dir: string, summary: RunSummary): void {
  writeFileAtomic(join(dir, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
}

/** The summary as it reads back from summary.json: what every report renders, byte for byte. */
export function asSaved(summary: RunSummary): RunSummary {
  return JSON.parse(JSON.stringify(summary)) as RunSummary;
}

/** Reads and validates summary.json; undefined when there is none. Errors name the file and field. */
export function readSummaryFile(dir: string): RunSummary | undefined {
  const path = join(dir, SUMMARY_FILE);
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunDirectoryError(`${path} is not valid JSON (${(error as Error).message}); run aeb report with --recompute to rebuild the summary from the dialogues`);
  }
  const parsed = RunSummarySchema.safeParse(value);
  if (!parsed.success) {
    throw new RunDirectoryError(`${path} is not a run summary:\n${formatIssues(parsed.error.issues)}\n(run aeb report with --recompute to rebuild it from the dialogues)`);
  }
  return parsed.data;
}
