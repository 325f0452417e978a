import { join } from "node:path";
import { writeFileAtomic } from "../record/atomic-file.js";
import { HTML_REPORT_FILE, MARKDOWN_REPORT_FILE } from "../record/files.js";
import { renderHtmlReport } from "./html-report.js";
import { renderMarkdownReport } from "./markdown-report.js";
import { buildReportModel, type ReportInput } from "./report-model.js";

/**
 * Writes report.md and report.html into `dir`; returns their paths. The input's summary is the
 * saved one (record/summary-file.ts), so `aeb report` re-renders what `aeb run`, `aeb judge` or
 * `aeb import` wrote byte for byte. The dialogues are not copied: they are plain data already, and
 * a copy of every dialogue doubled the peak memory of long runs.
 */
export async function writeReportFiles(
  dir: string,
  input: ReportInput,
  options: {
    /** Called after report.md is written, before report.html is drawn (the runner collects a large run's garbage there). */
    betweenPages?: () => void;
  } = {},
): Promise<{ markdown: string; html: string }> {
  const markdown = join(dir, MARKDOWN_REPORT_FILE);
  const page = join(dir, HTML_REPORT_FILE);
  // One model for both (building it is a pass over every row), and one page at a time: report.md
  // is written and let go before report.html is drawn.
  const model = buildReportModel(input);
  writeFileAtomic(markdown, renderMarkdownReport(input, model));
  options.betweenPages?.();
  writeFileAtomic(page, await renderHtmlReport(input, model));
  return { markdown, html: page };
}
