import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic-file.js";
import { join } from "node:path";
import { RunSummarySchema, type RunSummary } from "../analysis/summary-schema.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { SUMMARY_FILE } from "./files.js";

declare const savedBrand: unique symbol;

/**
 * A summary as summary.json holds it, validated by its schema: an undefined number (NaN in
 * memory) is null, undefined fields are gone. Only this module makes one (reading the file,
 * writing it, or {@link savedSummary}), so a report that takes a `SavedSummary` reads the
 * validated summary once and renders what `aeb report` renders from the file, byte for byte.
 */
export type SavedSummary = RunSummary & { readonly [savedBrand]: true };

/** summary.json's text: as JSON writes it (NaN becomes null), two-space indented. */
function summaryText(summary: RunSummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

/** The summary read back from its text; `where` names the text in the error (a file, or "the summary"). */
function parseSummaryText(text: string, where: string): SavedSummary {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RunDirectoryError(
      `${where} is not valid JSON (${(error as Error).message}); run aeb report with --recompute to rebuild the summary from the dialogues`,
    );
  }
  const parsed = RunSummarySchema.safeParse(value);
  if (!parsed.success) {
    throw new RunDirectoryError(
      `${where} is not a run summary:\n${formatIssues(parsed.error.issues)}\n(run aeb report with --recompute to rebuild it from the dialogues)`,
    );
  }
  // The value as the text has it, not zod's copy: the schema has no default or transform, so they
  // are equal, and the text's key order stays (zod's copy is in the schema's order), so writing a
  // saved summary again gives the same bytes.
  return value as SavedSummary;
}

/** A summary in memory (summariseRun's) as summary.json would hold it, validated: what a report of it renders. */
export function savedSummary(summary: RunSummary): SavedSummary {
  return parseSummaryText(summaryText(summary), "the summary");
}

/**
 * Writes summary.json (atomically: a temporary file renamed over it) and returns it as saved. The
 * summary is written as JSON writes it: an undefined number (NaN) becomes null, as its schema says.
 */
export function writeSummaryFile(dir: string, summary: RunSummary): SavedSummary {
  const text = summaryText(summary);
  const saved = parseSummaryText(text, "the summary to write");
  writeFileAtomic(join(dir, SUMMARY_FILE), text);
  return saved;
}

/** Reads and validates summary.json; undefined when there is none. Errors name the file and field. */
export function readSummaryFile(dir: string): SavedSummary | undefined {
  const path = join(dir, SUMMARY_FILE);
  if (!existsSync(path)) return undefined;
  return parseSummaryText(readFileSync(path, "utf8"), path);
}
