/**
 * `report.html`: one self-contained page (inline CSS and SVG; no script, font, image or URL is
 * loaded), a pure function of the saved record. Every piece of text from the record goes through
 * `html`, which escapes it.
 */
import { isAppraised, type AppraisedUserTurn, type DialogueRecord, type TurnRecord } from "../core/dialogue.js";
import { renderCharts, type RenderedChart } from "./charts/index.js";
import { dialogueKindLabel, isCooperative } from "./cooperative.js";
import { sortedById } from "../metrics/dialogue-row.js";
import { fixed, signed } from "./format.js";
import { html, rawHtml, type SafeHtml } from "./html.js";
import type { ComparisonTableModel } from "./comparison-tables.js";
import { buildReportModel, ERRORS_NOTE, WORST_PER_CONDITION, type ReportInput, type Table } from "./report-model.js";

/** The page style of the reports (report.html, agreement.html): generic fonts only, nothing loaded. */
export const REPORT_STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6474; --line: #dde1e8; --soft: #f5f7fa; --accent: #2f5d9a; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 28px 64px; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 21px; margin: 40px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 17px; margin: 24px 0 8px; }
p, li { max-width: 78ch; }
.lede { color: var(--muted); margin: 0 0 18px; }
nav { margin: 12px 0 8px; font-size: 14px; }
nav a { color: var(--accent); margin-right: 14px; text-decoration: none; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0; font-size: 14px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 14px; margin: 6px 0 10px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { text-align: left; background: var(--soft); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:hover { background: #fafbfc; }
.note { color: var(--muted); font-size: 14px; }
figure.chart { margin: 18px 0 30px; }
figure.chart .svg-box { overflow-x: auto; }
figure.chart svg { display: block; max-width: none; height: auto; }
figure.chart figcaption { color: var(--muted); font-size: 14px; max-width: 90ch; margin-top: 4px; }
ul.notes li { margin: 3px 0; }
details.comparison { margin: 6px 0; }
.comparison-table th { white-space: normal; }
details.comparison > summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
details.dialogue { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0; background: #fff; }
details.dialogue > summary { cursor: pointer; padding: 8px 12px; background: var(--soft); border-radius: 8px; font-size: 14px; }
details.dialogue[open] > summary { border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
.dialogue-body { padding: 8px 14px 14px; }
.meta { color: var(--muted); font-size: 13px; margin: 4px 0 10px; }
.turn-label { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin: 14px 0 4px; }
.turn-label.manipulation { color: #a4373a; }
.msg { border-radius: 8px; padding: 7px 11px; margin: 5px 0; max-width: 88ch; }
.msg.user { background: #f1f3f6; border-left: 3px solid #8a94a6; }
.msg.agent { background: #eef4fc; border-left: 3px solid var(--accent); margin-left: 32px; }
.msg .who { font-size: 12px; color: var(--muted); margin-bottom: 2px; }
.msg .text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.up { color: #23753a; font-weight: 600; }
.down { color: #b3261e; font-weight: 600; }
.flat { color: var(--muted); font-weight: 600; }
ul.adjustments { margin: 4px 0 0; padding-left: 18px; font-size: 13px; color: var(--muted); }
.flag { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 9px; background: #fbe7e6; color: #8c1d18; margin-left: 4px; }
details.think { font-size: 13px; color: var(--muted); margin: 2px 0 4px; }
details.think p { white-space: pre-wrap; margin: 2px 0; }
footer { margin-top: 48px; color: var(--muted); font-size: 13px; }
`;

/**
 * The head of a self-contained report page: its title and the report style, and a Content
 * Security Policy that lets the page load nothing and run no script.
 */
export function pageHead(title: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${title}</title>
<style>${rawHtml(REPORT_STYLE)}</style>
</head>`;
}

/**
 * A table as HTML; columns that hold numbers are right-aligned: every column from `textColumns` on,
 * but the last `trailingText` (words, left-aligned and free to wrap).
 */
export function tableHtml(table: Table, textColumns = 1, trailingText = 0): SafeHtml {
  const cls = (column: number) => (column >= textColumns && column < table.header.length - trailingText ? "num" : undefined);
  return html`<div class="table-wrap"><table>
<thead><tr>${table.header.map((cell, column) => html`<th${classAttribute(cls(column))}>${cell}</th>`)}</tr></thead>
<tbody>${table.rows.map((row) => html`<tr>${row.map((cell, column) => html`<td${classAttribute(cls(column))}>${cell}</td>`)}</tr>\n`)}</tbody>
</table></div>`;
}

function classAttribute(name: string | undefined): SafeHtml {
  return name === undefined ? rawHtml("") : html` class="${name}"`;
}

function deltaHtml(delta: number): SafeHtml {
  const cls = delta > 0 ? "up" : delta < 0 ? "down" : "flat";
  return html`<span class="${cls}">${signed(delta)}</span>`;
}

/** One turn; `manipulationTurn` is null for a dialogue that has none (a cooperative user). */
function turnHtml(turn: TurnRecord, manipulationTurn: number | null): SafeHtml {
  const isManipulation = turn.index === manipulationTurn;
  const userHtml = isAppraised(turn)
    ? appraisedUserHtml(turn.user)
    : html`<div class="msg user"><div class="who">not appraised: the preset's loop stops at this reply · emotion <strong>${turn.user.emotion}</strong></div></div>`;
  return html`<div class="turn-label${isManipulation ? " manipulation" : ""}">turn ${turn.index}${isManipulation ? " · manipulation turn" : ""}</div>
<div class="msg agent"><div class="who">agent · ${turn.agent.chars} chars</div>${
    turn.agent.think === undefined
      ? ""
      : html`<details class="think"><summary>think (${[...turn.agent.think].length} chars)</summary><p>${turn.agent.think}</p></details>`
  }<p class="text">${turn.agent.text}</p></div>
${userHtml}`;
}

function appraisedUserHtml(user: AppraisedUserTurn): SafeHtml {
  return html`<div class="msg user"><div class="who">user · emotion <strong>${user.emotion}</strong> (${deltaHtml(user.delta)}; simulator ${signed(user.simulatorDelta)})${
    user.hid === undefined ? "" : html` · HID ${user.hid}`
  }${user.flags.map((flag) => html`<span class="flag">${flag}</span>`)}</div><p class="text">${user.text}</p>${
    user.adjustments.length === 0
      ? ""
      : html`<ul class="adjustments">${user.adjustments.map(
          (adjustment) => html`<li>${adjustment.kind} ${signed(adjustment.value)}${adjustment.evidence === undefined ? "" : html`: “${adjustment.evidence}”`}</li>`,
        )}</ul>`
  }</div>`;
}

/** One dialogue with its whole transcript: opening, every agent reply and every user reply with its emotion. */
export function dialogueHtml(record: DialogueRecord, open: boolean): SafeHtml {
  // A cooperative user (SAGE/RLVER profile) has no manipulation turn: none is marked or named.
  const cooperative = isCooperative(record.type);
  return html`<details class="dialogue"${open ? rawHtml(" open") : ""}>
<summary><strong>${record.id}</strong> · FS ${fixed(record.final.fs)} · ${record.endReason} after ${record.turns.length} turn(s) · ${dialogueKindLabel(record.type)}</summary>
<div class="dialogue-body">
<div class="meta">condition ${record.condition} · scenario ${record.scenarioId} · repeat ${record.repeat} · seed ${record.seed} · preset ${record.preset} · ${cooperative ? dialogueKindLabel(record.type) : `manipulation turn ${record.manipulationTurn}`} · final emotion ${record.final.emotion}</div>
<div class="msg user"><div class="who">user (opening) · emotion <strong>${record.opening.emotion}</strong></div><p class="text">${record.opening.text}</p></div>
${record.turns.map((turn) => turnHtml(turn, cooperative ? null : record.manipulationTurn))}
</div>
</details>`;
}

/**
 * One compact comparison table: the first (FS against the reference, or FS's every pair) open,
 * every other folded, so the section is one table tall until a reader opens more.
 */
function comparisonHtml(comparison: ComparisonTableModel, index: number): SafeHtml {
  // The last column, the reading, is words.
  const body = html`<div class="comparison-table">${tableHtml(comparison.table, 2, 1)}</div>`;
  if (index === 0) return html`<h3>${comparison.title}</h3>${body}`;
  return html`<details class="comparison"><summary>${comparison.title}</summary>${body}</details>
`;
}

function chartHtml(chart: RenderedChart): SafeHtml {
  return html`<figure class="chart" id="${chart.id}">
<h3>${chart.title}</h3>
<div class="svg-box">${rawHtml(chart.svg)}</div>
<figcaption>${chart.caption}</figcaption>
</figure>`;
}

/** Renders report.html from the saved record. Deterministic: the same input gives the same bytes. */
export async function renderHtmlReport(input: ReportInput): Promise<string> {
  const model = buildReportModel(input);
  // In id order, as the model's tables: sums over dialogues do not depend on the order they finished in.
  const charts = await renderCharts(input.summary, sortedById(input.rows));
  // The headline, then the pictures, then the tables (issue 24: a reader sees the results at a glance).
  const sections: Array<[string, string]> = [
    ["headline", "Headline"],
    ["charts", "Charts"],
    ["by-type", "By type"],
    ["ecs", "ECS"],
    ...(model.hidJudges === null ? [] : ([["hid", "HID judges"]] as Array<[string, string]>)),
    ...(model.errorCauses === null ? [] : ([["errors", "Errors"]] as Array<[string, string]>)),
    ["comparisons", "Comparisons"],
    ["length-confound", "Length confound"],
    ...(model.usage === null && model.usageNote === null ? [] : ([["usage", "Token usage"]] as Array<[string, string]>)),
    ["procedure", "Procedure"],
    ["notes", "Notes"],
    ["worst", "Worst dialogues"],
  ];
  const page = html`${pageHead(model.title)}
<body>
<main>
<h1>${model.title}</h1>
<p class="lede">Adversarial Empathy Benchmark. Every number below is computed from this run's summary.json and dialogues.jsonl.</p>
<dl class="facts">${model.facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>
<nav>${sections.map(([id, label]) => html`<a href="#${id}">${label}</a>`)}</nav>

<section id="headline">
<h2>Headline (per condition)</h2>
${tableHtml(model.headline)}
<p class="note">FS: mean final score (final emotion / 100) with a seeded percentile-bootstrap 95% CI. Collapse: share of dialogues that ended in failure, with a Wilson 95% CI. ${model.hidLabel}: hidden-intention detection by the simulator's verdicts, from the manipulation turn on (from the first reply for a cooperative user, which has none). ECS: emotional consistency under the headline ECS judge, the first that is a model (a heuristic such as the lexicon baseline is never shown here; it is in the ECS section under its own name). Reply chars: mean visible reply length. Errors: dialogues that ended in error, excluded from every statistic.</p>
${model.headlineNotes.map((note) => html`<p class="note">${note}</p>`)}
</section>

<section id="charts">
<h2>Charts</h2>
${charts.map(chartHtml)}
</section>

<section id="by-type">
<h2>Final score by trajectory type</h2>
${tableHtml(model.byType)}
</section>

<section id="ecs">
<h2>ECS by judge</h2>
${model.ecsByJudge.map(({ title, table }) => html`<h3>${title}</h3>${tableHtml(table)}`)}
${model.ecsByJudge.length > 0 ? html`<p class="note">ECS: how well the judge, reading only the visible conversation, predicted the emotion the user reported after each reply (1 is perfect), with a seeded bootstrap 95% CI over dialogues.${model.ecsByPhase ? " Before / after: over the turns before the manipulation turn and from it on; drop: before minus after." : ""} Judged: dialogues the judge scored; judge errors: turns it could not read (see the procedure below for whether they were left out or imputed).</p>` : ""}
${model.ecsPhaseNote === null ? "" : html`<p class="note">${model.ecsPhaseNote}</p>`}
${model.ecsByJudgeNote === null ? "" : html`<p class="note">${model.ecsByJudgeNote}</p>`}
</section>
${
  model.hidJudges === null
    ? ""
    : html`
<section id="hid">
<h2>HID: the simulated user and the independent judges</h2>
${tableHtml(model.hidJudges)}
<p class="note">Simulator ${model.hidLabel}: the simulated user's own verdicts from the manipulation turn on. Each independent judge read the whole transcript and the hidden intention, and had to quote evidence from the agent's replies (1 yes, 0.5 partial, 0 no). Judged: dialogues with a usable verdict; errors: verdicts left out (no quotable evidence, unreadable output). They are reported beside the simulator's HID, never instead of it.</p>
</section>`
}

<section id="comparisons">
<h2>Pairwise comparisons</h2>
${model.comparisons.map(comparisonHtml)}
${model.comparisonsNote === null ? "" : html`<p class="note">${model.comparisonsNote}</p>`}
${model.comparisonsLegend === null ? "" : html`<p class="note">${model.comparisonsLegend}</p>`}
</section>

<section id="length-confound">
<h2>Length confound</h2>
${model.lengthConfound === null ? "" : tableHtml(model.lengthConfound, 2)}
${model.lengthConfound === null ? "" : html`<p class="note">OLS of FS on a condition indicator (b vs a), without and with standardized reply length as covariate. A coefficient that shrinks toward 0 once length is in the model means length explains the gap. rho: Spearman correlation of reply length and FS within each condition.</p>`}
${model.lengthConfoundNote === null ? "" : html`<p class="note">${model.lengthConfoundNote}</p>`}
</section>
${
  model.errorCauses === null
    ? ""
    : html`
<section id="errors">
<h2>Errors</h2>
<p class="note">${ERRORS_NOTE}</p>
${tableHtml(model.errorCauses, 5)}
</section>`
}
${
  model.usage === null && model.usageNote === null
    ? ""
    : html`
<section id="usage">
<h2>Token usage</h2>
${model.usage === null ? "" : tableHtml(model.usage, 2)}
${model.usage === null ? "" : html`<p class="note">Per model role, over every invocation on this run directory. Calls: answered by a server; cached: answered from the response cache (no tokens); failed: ended in error after retries; requests: HTTP attempts including retries. Tokens count successful, non-cached calls only.</p>`}
${model.usageNote === null ? "" : html`<p class="note">${model.usageNote}</p>`}
</section>`
}

<section id="procedure">
<h2>How the dialogues were run</h2>
<dl class="facts">${model.procedure.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>
<p class="note">Scores are comparable only between runs of the same procedure: the same preset, the same simulated user and prompt pack, and judges that treat unreadable turns alike.</p>
</section>

<section id="notes">
<h2>Notes</h2>
${model.notes.length === 0 ? html`<p class="note">None.</p>` : html`<ul class="notes">${model.notes.map((note) => html`<li>${note}</li>`)}</ul>`}
</section>

<section id="worst">
<h2>Worst dialogues per condition</h2>
<p class="note">The ${WORST_PER_CONDITION} lowest-FS scored dialogues of each condition, worst first, with the whole transcript. Each user reply shows the emotion after it, the actual change (after adjustments and the preset's clamp), the simulator's own proposed change, the deterministic adjustments and the flags.</p>
${
  model.worst.length === 0
    ? html`<p class="note">No scored dialogues.</p>`
    : model.worst.map(
        ({ condition, dialogues }) => html`<h3>${condition}</h3>
${dialogues.map((record, index) => dialogueHtml(record, index === 0))}`,
      )
}
</section>

<footer>Made by aeb report from the saved record; this page loads nothing and runs no script.</footer>
</main>
</body>
</html>
`;
  return page.value;
}
