/**
 * A run directory as a report's input: the record module reads it (rows, summary, setup, reading
 * notes); the report adds the full records of the few dialogues it shows with text.
 */
import { readScoredDialoguesById } from "../record/dialogue-reader.js";
import { loadRun, type LoadedRun } from "../record/load-run.js";
import { transcriptIds, type ReportInput } from "./report-model.js";

export interface LoadedReport extends LoadedRun {
  transcripts: ReportInput["transcripts"];
}

/**
 * Reads summary.json (or recomputes it), dialogues.jsonl and run.json of a run directory.
 * dialogues.jsonl is read in two streamed passes, as `aeb run` writes its reports: one for the
 * rows of every dialogue, one for the records of the few the reports show with text.
 */
export function loadRunForReport(dir: string, options: { recompute?: boolean; reference?: string } = {}): LoadedReport {
  const run = loadRun(dir, options);
  return { ...run, transcripts: readScoredDialoguesById(dir, transcriptIds(run.summary, run.rows)) };
}

/** The report input of a loaded run. */
export function reportInputOf(run: LoadedReport): ReportInput {
  return {
    summary: run.summary,
    rows: run.rows,
    transcripts: run.transcripts,
    readingNotes: run.readingNotes,
    ...(run.setup !== undefined ? { setup: run.setup } : {}),
  };
}
