import { summariseRun, type SummaryOptions } from "../analysis/run-summary.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import { readDialogueRows, readScoredDialoguesById } from "../record/dialogue-reader.js";
import { readRunSetup, type RunSetup } from "../record/load-run.js";
import type { Invocation } from "../record/manifest.js";
import { writeSummaryFile } from "../record/summary-file.js";
import { readUsageTotals } from "../record/usage-log.js";
import { transcriptIds } from "../report/report-model.js";
import { writeReportFiles } from "../report/write-reports.js";
import { releaseGarbage } from "./release-garbage.js";

/**
 * A run's outputs: summary.json (a record file, written by record/) and the reports rendered from
 * it (report/). `aeb run`, `aeb judge` and `aeb chat --out` end here.
 */

/** The setup with its last invocation ending as `outcome` (see {@link RunOutputOptions.endingAs}). */
function withLastOutcome(setup: RunSetup | undefined, ending: Pick<Invocation, "outcome" | "endedAt"> | undefined): RunSetup | undefined {
  const invocations = setup?.invocations;
  const last = invocations?.at(-1);
  if (ending === undefined || invocations === undefined || last === undefined) return setup;
  return { ...setup, invocations: [...invocations.slice(0, -1), { ...last, ...ending }] };
}

export interface RunOutputOptions extends Omit<SummaryOptions, "usage" | "conditionOrder"> {
  /** Conditions in this order first; default: the order in which dialogues.jsonl first names them. */
  conditionOrder?: readonly string[];
  /** Only these dialogues (a run's plan): a directory continued under another config keeps others on disk. */
  ids?: { has(id: string): boolean };
  /**
   * How the invocation writing these files ends, as the reports show it: run.json records it only
   * after they are written (so it never says "finished" for a run whose reports failed).
   */
  endingAs?: Pick<Invocation, "outcome" | "endedAt">;
}

/**
 * Writes summary.json, report.md and report.html of a run directory from what the directory holds:
 * the dialogues (read as rows in one streamed pass, later judgements merged), the token usage
 * logged, run.json's setup and provenance, and the records of the few dialogues the reports show
 * with text (a second streamed pass). Memory does not grow with the dialogues' text. The reports
 * render the summary as written (summary-file.ts), so `aeb report` re-renders them byte for byte.
 */
export async function writeRunOutputs(dir: string, options: RunOutputOptions): Promise<RunSummary> {
  const ids = options.ids;
  const rows = readDialogueRows(dir).rows.filter((row) => ids === undefined || ids.has(row.id));
  // A large run's ending starts from its live heap, not the play's garbage (release-garbage.ts).
  releaseGarbage(rows.length);
  const usage = readUsageTotals(dir);
  const conditionOrder = options.conditionOrder ?? [...new Set(rows.map((row) => row.condition))];
  const summary = summariseRun(rows, { ...options, conditionOrder, ...(usage !== undefined ? { usage } : {}) });
  const saved = writeSummaryFile(dir, summary);
  releaseGarbage(rows.length);
  const setup = withLastOutcome(readRunSetup(dir).setup, options.endingAs);
  await writeReportFiles(
    dir,
    {
      summary: saved,
      rows,
      transcripts: readScoredDialoguesById(dir, transcriptIds(saved, rows)),
      ...(setup !== undefined ? { setup } : {}),
    },
    { betweenPages: () => releaseGarbage(rows.length) },
  );
  return summary;
}
