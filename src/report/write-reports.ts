import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderHtmlReport } from "./html-report.js";
import { renderMarkdownReport } from "./markdown-report.js";
import type { ReportInput } from "./report-model.js";

export const MARKDOWN_REPORT_FILE = "report.md";
export const HTML_REPORT_FILE = "report.html";

/**
 * Writes report.md and report.html into `dir`; returns their paths. The reports are made from the
 * input as it reads back from JSON (NaN becomes null, undefined fields go), i.e. from the record
 * as saved, so `aeb report` re-renders what `aeb run`, `aeb judge` or `aeb import` wrote byte for byte.
 */
export async function writeReportFiles(dir: string, input: ReportInput): Promise<{ markdown: string; html: string }> {
  const saved = JSON.parse(JSON.stringify(input)) as ReportInput;
  const markdown = join(dir, MARKDOWN_REPORT_FILE);
  const page = join(dir, HTML_REPORT_FILE);
  const htmlText = await renderHtmlReport(saved);
  writeFileSync(markdown, renderMarkdownReport(saved));
  writeFileSync(page, htmlText);
  return { markdown, html: page };
}
