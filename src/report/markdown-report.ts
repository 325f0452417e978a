/**
 * `report.md`: the report's sections as markdown, and a short account of the worst dialogues (no
 * charts; they are in report.html). A pure function of the saved record; transcript text is
 * escaped so it can neither break a table nor smuggle markup into a rendered page.
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { SavedSummary } from "../record/summary-file.js";
import { dialogueKindLabel } from "./cooperative.js";
import { fixed, markdownTable, markdownText, truncate } from "./format.js";
import { buildReportModel, sectionOf, type ReportInput, type ReportModel, type ReportSection, type SectionPart } from "./report-model.js";
import { isShown } from "./sections/index.js";

/** How much of the last user reply the short account quotes. */
const QUOTE_CHARS = 160;

/**
 * report.md's order of the sections: the procedure first, errors and usage before the
 * comparisons, no charts. It predates the page's reordering (issue 24) and is kept so that a
 * run's report.md stays byte for byte what it was.
 */
const MARKDOWN_ORDER = [
  "procedure",
  "headline",
  "by-type",
  "ecs",
  "hid",
  "errors",
  "usage",
  "comparisons",
  "length-confound",
  "notes",
  "worst",
];

function worstLine(record: DialogueRecord): string {
  const path = [record.opening.emotion, ...record.turns.map((turn) => turn.user.emotion)].join(" → ");
  // The last reply the user actually wrote (a reply that was not appraised has no answer).
  const lastUser = record.turns.findLast((turn) => turn.user.text !== undefined)?.user.text ?? record.opening.text;
  return (
    // `type` and `endReason` are schema-checked enum values (letters and "_"), shown as they are; so is the cooperative label.
    `- ${markdownText(record.id)} (${dialogueKindLabel(record.type)}): FS ${fixed(record.final.fs)}, ${record.endReason} after ${record.turns.length} turn(s); ` +
    `emotion ${path}. Last user reply: “${markdownText(truncate(lastUser, QUOTE_CHARS))}”`
  );
}

/** A part as markdown lines, each block followed by an empty line; the page's own parts (its prose, the charts) give none. */
function partLines(part: SectionPart): string[] {
  switch (part.kind) {
    case "table":
      return [
        ...(part.title === undefined ? [] : [`### ${markdownText(part.title)}`, ""]),
        markdownTable(part.table.header, part.table.rows),
        "",
      ];
    case "entries":
      return [markdownTable(part.header, part.entries), ""];
    case "note":
      return [markdownText(part.text), ""];
    case "list":
      return part.items.length === 0 ? [part.empty, ""] : [...part.items.map((item) => `- ${markdownText(item)}`), ""];
    case "dialogues":
      if (part.groups.length === 0) return [part.empty, ""];
      return part.groups.flatMap(({ condition, dialogues }) => [`### ${markdownText(condition)}`, "", ...dialogues.map(worstLine), ""]);
    case "page-note":
    case "charts":
      return [];
  }
}

function sectionLines(section: ReportSection): string[] {
  if (!isShown(section)) return [];
  return [`## ${markdownText(section.title)}`, "", ...section.lines.flat().flatMap(partLines)];
}

/**
 * Renders report.md. Accepts the summary alone (tables only) or the whole report input (tables,
 * notes and the worst dialogues).
 */
export function renderMarkdownReport(input: SavedSummary | ReportInput, built?: ReportModel): string {
  const reportInput: ReportInput = "rows" in input ? input : { summary: input, rows: [], transcripts: new Map() };
  const model = built ?? buildReportModel(reportInput);
  const { summary } = reportInput;
  return [
    `# ${markdownText(model.title)}`,
    "",
    `${summary.dialogues} dialogues over ${summary.scenarios} scenarios, ${summary.repeats} repeat(s), seed ${summary.seed}; ${summary.errors} ended in error.`,
    "",
    markdownTable(["fact", "value"], model.facts),
    "",
    ...MARKDOWN_ORDER.flatMap((id) => sectionLines(sectionOf(model, id))),
    "Charts: see report.html.",
    "",
  ].join("\n");
}
