/**
 * `report.md`: the report's tables and a short account of the worst dialogues, as markdown (no
 * charts; they are in report.html). A pure function of the saved record; transcript text is
 * escaped so it can neither break a table nor smuggle markup into a rendered page.
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import { dialogueKindLabel } from "./cooperative.js";
import { fixed, markdownTable, markdownText, truncate } from "./format.js";
import { buildReportModel, ERRORS_NOTE, WORST_PER_CONDITION, type ReportInput } from "./report-model.js";

/** How much of the last user reply the short account quotes. */
const QUOTE_CHARS = 160;

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

/**
 * Renders report.md. Accepts the summary alone (tables only) or the whole report input (tables,
 * notes and the worst dialogues).
 */
export function renderMarkdownReport(input: RunSummary | ReportInput): string {
  const reportInput: ReportInput = "rows" in input ? input : { summary: input, rows: [], transcripts: new Map() };
  const model = buildReportModel(reportInput);
  const { summary } = reportInput;
  const lines = [
    `# ${markdownText(model.title)}`,
    "",
    `${summary.dialogues} dialogues over ${summary.scenarios} scenarios, ${summary.repeats} repeat(s), seed ${summary.seed}; ${summary.errors} ended in error.`,
    "",
    markdownTable(["fact", "value"], model.facts),
    "",
    "## How the dialogues were run",
    "",
    markdownTable(["procedure", "value"], model.procedure),
    "",
    "Scores are comparable only between runs of the same procedure: the same preset, the same simulated user and prompt pack, and judges that treat unreadable turns alike.",
    "",
    "## Headline (per condition)",
    "",
    markdownTable(model.headline.header, model.headline.rows),
    "",
    ...model.headlineNotes.flatMap((note) => [markdownText(note), ""]),
    "## Final score by trajectory type",
    "",
    markdownTable(model.byType.header, model.byType.rows),
    "",
    "## ECS by judge",
    "",
  ];
  for (const { title, table } of model.ecsByJudge) lines.push(`### ${markdownText(title)}`, "", markdownTable(table.header, table.rows), "");
  if (model.ecsByJudgeNote !== null) lines.push(markdownText(model.ecsByJudgeNote), "");
  if (model.ecsPhaseNote !== null) lines.push(markdownText(model.ecsPhaseNote), "");
  if (model.hidJudges !== null) lines.push("## HID: the simulated user and the independent judges", "", markdownTable(model.hidJudges.header, model.hidJudges.rows), "");
  if (model.errorCauses !== null) lines.push("## Errors", "", ERRORS_NOTE, "", markdownTable(model.errorCauses.header, model.errorCauses.rows), "");
  if (model.usage !== null || model.usageNote !== null) {
    lines.push("## Token usage", "");
    if (model.usage !== null) lines.push(markdownTable(model.usage.header, model.usage.rows), "");
    if (model.usageNote !== null) lines.push(markdownText(model.usageNote), "");
  }
  lines.push("## Pairwise comparisons", "");
  for (const { title, table } of model.comparisons) lines.push(`### ${markdownText(title)}`, "", markdownTable(table.header, table.rows), "");
  if (model.comparisonsNote !== null) lines.push(markdownText(model.comparisonsNote), "");
  if (model.comparisonsLegend !== null) lines.push(markdownText(model.comparisonsLegend), "");
  lines.push("## Length confound", "");
  if (model.lengthConfound !== null) lines.push(markdownTable(model.lengthConfound.header, model.lengthConfound.rows), "");
  if (model.lengthConfoundNote !== null) lines.push(markdownText(model.lengthConfoundNote), "");
  lines.push("## Notes", "");
  if (model.notes.length === 0) lines.push("None.", "");
  else lines.push(...model.notes.map((note) => `- ${markdownText(note)}`), "");
  if (reportInput.rows.length > 0) {
    lines.push("## Worst dialogues per condition", "", `The ${WORST_PER_CONDITION} lowest-FS scored dialogues of each condition; whole transcripts are in report.html.`, "");
    if (model.worst.length === 0) lines.push("No scored dialogues.", "");
    for (const { condition, dialogues } of model.worst) lines.push(`### ${markdownText(condition)}`, "", ...dialogues.map(worstLine), "");
  }
  lines.push("Charts: see report.html.", "");
  return lines.join("\n");
}
