import type { ConditionSummary } from "../../analysis/summary-schema.js";
import { noModelJudgeNote } from "../../analysis/ecs-judges.js";
import { fixed, hasReplyTokens, headlineHeader, NO_MODEL_JUDGE, percent, replyLengthCells, withCI } from "../format.js";
import { OFFLINE_HID_NOTE } from "../hid-label.js";
import { html } from "../html.js";
import { headlineEcsCell, heuristicOf, type ReportReading } from "../report-reading.js";
import type { ReportSection, Table } from "./section.js";

function collapseCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  const ci = condition.collapseCi95;
  return ci === null ? percent(condition.collapseRate) : `${percent(condition.collapseRate)} [${percent(ci[0])}, ${percent(ci[1])}]`;
}

function fsCell(condition: ConditionSummary): string {
  if (condition.n === 0) return "n/a";
  if (condition.fs.ci95 === null) return `${fixed(condition.fs.mean)} (n=${condition.n}: no CI)`;
  return withCI(condition.fs);
}

/** The paper's table: per condition n, FS, collapse, the simulator's HID, the headline ECS, reply length, errors. */
export function headlineTable(reading: ReportReading): Table {
  const { conditions, hidLabel } = reading;
  const withReplyTokens = hasReplyTokens(conditions);
  return {
    header: headlineHeader(conditions, ["condition", "n", "FS [95% CI]", "collapse [95% CI]", hidLabel, "ECS", "reply chars", "errors"]),
    rows: conditions.map((condition, index) => [
      condition.name,
      String(condition.n),
      fsCell(condition),
      collapseCell(condition),
      withCI(condition.hid),
      headlineEcsCell(reading, index, condition),
      ...replyLengthCells(condition, withReplyTokens),
      String(condition.errors),
    ]),
  };
}

/** What the ECS column shows and why (a model judge's score, or n/a and the reason). */
function ecsNote(reading: ReportReading): string {
  const { judges, namedJudges, scoringJudges, conditions, headlineJudge, ecsKinds } = reading;
  if (judges.length === 0) return "ECS is n/a: no ECS judge ran.";
  if (namedJudges.length === 0 && conditions.every((condition) => condition.ecs === null)) {
    return `ECS is n/a: summary.json has no ECS means, although the dialogues carry scores from ${scoringJudges.join(", ")} (the charts use them).`;
  }
  if (headlineJudge === null) return noModelJudgeNote(ecsKinds) ?? `ECS is n/a: ${NO_MODEL_JUDGE}.`;
  if (conditions.every((condition, index) => headlineEcsCell(reading, index, condition) === "n/a")) {
    const others = scoringJudges.filter((judge) => judge !== headlineJudge);
    return `ECS is n/a: the headline's ECS judge, ${headlineJudge}, scored no dialogue${others.length > 0 ? ` (the ECS tables and charts show ${others.join(", ")})` : ""}.`;
  }
  const heuristicsNamed = ecsKinds.heuristics
    .map((heuristic) => `the ${heuristic.label} (${heuristic.name}) ${heuristic.description}`)
    .join("; ");
  const modelJudges = judges.filter((judge) => heuristicOf(reading, judge) === undefined);
  return (
    `ECS: the ${headlineJudge} judge's mean score (a model judge${modelJudges.length > 1 ? ", the first of several" : ""}); the ECS section below has ${judges.length > 1 ? "every judge's scores" : "its scores"} before and after the manipulation turn.` +
    (heuristicsNamed === "" ? "" : ` Not in this column: ${heuristicsNamed}; it is in the ECS section under that name.`)
  );
}

/** The sentences under the headline table (what n/a means, what HID is here, missing intervals). */
export function headlineNotes(reading: ReportReading): string[] {
  const notes = [ecsNote(reading)];
  if (reading.offlineUser) notes.push(OFFLINE_HID_NOTE);
  if (reading.hidColumns.length > 0)
    notes.push(
      `${reading.hidLabel} is the simulated user's own verdicts; the independent HID judges (${reading.hidColumns.map((column) => column.judge).join(", ")}) are beside it in the HID table.`,
    );
  if (reading.conditions.some((condition) => condition.n > 0 && condition.fs.ci95 === null))
    notes.push("A condition with fewer than two scored dialogues has no confidence interval.");
  return notes;
}

export function headlineSection(reading: ReportReading): ReportSection {
  const legend = html`FS: mean final score (final emotion / 100) with a seeded percentile-bootstrap 95% CI. Collapse: share of dialogues that ended in failure, with a Wilson 95% CI. ${reading.hidLabel}: hidden-intention detection by the simulator's verdicts, from the manipulation turn on (from the first reply for a cooperative user, which has none). ECS: emotional consistency under the headline ECS judge, the first that is a model (a heuristic such as the lexicon baseline is never shown here; it is in the ECS section under its own name). Reply chars: mean visible reply length. Errors: dialogues that ended in error, excluded from every statistic.`;
  return {
    id: "headline",
    title: "Headline (per condition)",
    navLabel: "Headline",
    lines: [
      [{ kind: "table", table: headlineTable(reading) }],
      [{ kind: "page-note", html: legend }],
      headlineNotes(reading).map((text) => ({ kind: "note", text })),
    ],
  };
}
