import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderHtmlReport } from "./html-report.js";
import { renderMarkdownReport } from "./markdown-report.js";
import type { ReportInput } from "./report-model.js";

export const MARKDOWN_REPORT_FILE = "report.md";
export const HTML_REPORT_FILE = "report.html";

/**
 * Writes report.md and report.html into `dir`; returns their paths. The summary is used as it
 * reads back from JSON (NaN becomes null, undefined fields go), i.e. as saved, so `aeb report`
 * re-renders what `aeb run`, `aeb judge` or `aeb import` wrote byte for byte. The dialogues (rows
 * or records) are not copied: they are plain data already, and a copy of every dialogue doubled
 * the peak memory of long runs.
 */
export async function writeReportFiles(dir: string, input: ReportInput): Promise<{ markdown: string; html: string }> {
  const saved: ReportInput = { ...input, summary: JSON.parse(JSON.stringify(input.summary)) as ReportInput["summary"] };
  const markdown = join(dir, MARKDOWN_REPORT_FILE);
  const page = join(dir, HTML_REPORT_FILE);
  const htmlText = await renderHtmlReport(saved);
  writeFileSync(markdown, renderMarkdownReport(saved));
  writeFileSync(page, htmlText);
  return { markdown, html: page };
}
