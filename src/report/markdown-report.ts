import type { RunSummary } from "../runner/summary.js";
import { fixed, HEADLINE_HEADER, headlineRows, markdownTable } from "./format.js";

/** `report.md`: a pure function of the summary. */
export function renderMarkdownReport(summary: RunSummary): string {
  const types = [...new Set(summary.conditions.flatMap((condition) => Object.keys(condition.byType)))].sort();
  const sections = [
    "# AEB run report",
    "",
    `${summary.dialogues} dialogues over ${summary.scenarios} scenarios, ${summary.repeats} repeat(s), seed ${summary.seed}; ${summary.errors} ended in error.`,
    "",
    "## Headline (per condition)",
    "",
    markdownTable(HEADLINE_HEADER, headlineRows(summary.conditions)),
    "",
    "## Final score by trajectory type",
    "",
    markdownTable(
      ["condition", ...types],
      summary.conditions.map((condition) => [condition.name, ...types.map((type) => fixed(condition.byType[type]?.fsMean))]),
    ),
    "",
  ];
  if (summary.notes.length > 0) sections.push("## Notes", "", ...summary.notes.map((note) => `- ${note}`), "");
  return `${sections.join("\n")}`;
}
