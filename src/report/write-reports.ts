import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderHtmlReport } from "./html-report.js";
import { renderMarkdownReport } from "./markdown-report.js";
import type { ReportInput } from "./report-model.js";

export const MARKDOWN_REPORT_FILE = "report.md";
export const HTML_REPORT_FILE = "report.html";

/** Writes report.md and report.html into `dir`; returns their paths. */
export async function writeReportFiles(dir: string, input: ReportInput): Promise<{ markdown: string; html: string }> {
  const markdown = join(dir, MARKDOWN_REPORT_FILE);
  const page = join(dir, HTML_REPORT_FILE);
  const htmlText = await renderHtmlReport(input);
  writeFileSync(markdown, renderMarkdownReport(input));
  writeFileSync(page, htmlText);
  return { markdown, html: page };
}
