import { join } from "node:path";
import { summariseRun, type SummaryOptions } from "../analysis/run-summary.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import { readDialogueRows, readScoredDialoguesById } from "../record/dialogue-reader.js";
import { writeFileAtomic } from "../record/atomic-file.js";
import { HTML_REPORT_FILE, MARKDOWN_REPORT_FILE } from "../record/files.js";
import { readRunSetup, type RunSetup } from "../record/load-run.js";
import type { Invocation } from "../record/manifest.js";
import { asSaved, writeSummaryFile } from "../record/summary-file.js";
import { readUsageTotals } from "../record/usage-log.js";
import { renderHtmlReport } from "./html-report.js";
import { renderMarkdownReport } from "./markdown-report.js";
import { transcriptIds, type ReportInput } from "./report-model.js";

/**
 * Writes report.md and report.html into `dir`; returns their paths. The summary is used as it
 * reads back from JSON (NaN becomes null, undefined fields go), i.e. as saved, so `aeb report`
 * re-renders what `aeb run`, `aeb judge` or `aeb import` wrote byte for byte. The dialogues are
 * not copied: they are plain data already, and a copy of every dialogue doubled the peak memory
 * of long runs.
 */
export async function writeReportFiles(dir: string, input: ReportInput): Promise<{ markdown: string; html: string }> {
  const saved: ReportInput = { ...input, summary: asSaved(input.summary) };
  const markdown = join(dir, MARKDOWN_REPORT_FILE);
  const page = join(dir, HTML_REPORT_FILE);
  const htmlText = await renderHtmlReport(saved);
  writeFileAtomic(markdown, renderMarkdownReport(saved));
  writeFileAtomic(page, htmlText);
  return { markdown, html: page };
}

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
  ids?: ReadonlySet<string>;
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
 * with text (a second streamed pass). Memory does not grow with the dialogues' text.
 */
export async function writeRunOutputs(dir: string, options: RunOutputOptions): Promise<RunSummary> {
  const ids = options.ids;
  const rows = readDialogueRows(dir).rows.filter((row) => ids === undefined || ids.has(row.id));
  const usage = readUsageTotals(dir);
  const conditionOrder = options.conditionOrder ?? [...new Set(rows.map((row) => row.condition))];
  const summary = summariseRun(rows, { ...options, conditionOrder, ...(usage !== undefined ? { usage } : {}) });
  writeSummaryFile(dir, summary);
  const setup = withLastOutcome(readRunSetup(dir).setup, options.endingAs);
  const saved = asSaved(summary);
  await writeReportFiles(dir, { summary: saved, rows, transcripts: readScoredDialoguesById(dir, transcriptIds(saved, rows)), ...(setup !== undefined ? { setup } : {}) });
  return summary;
}
