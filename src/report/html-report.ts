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
import { buildReportModel, type ReportInput, type ReportModel, type ReportSection, type SectionPart, type Table } from "./report-model.js";
import { isShown } from "./sections/index.js";

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
          (adjustment) =>
            html`<li>${adjustment.kind} ${signed(adjustment.value)}${adjustment.evidence === undefined ? "" : html`: “${adjustment.evidence}”`}</li>`,
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

function chartHtml(chart: RenderedChart): SafeHtml {
  return html`<figure class="chart" id="${chart.id}">
<h3>${chart.title}</h3>
<div class="svg-box">${rawHtml(chart.svg)}</div>
<figcaption>${chart.caption}</figcaption>
</figure>`;
}

/** A table part: a plain table (under its title, if any), or a compact one of a series whose first is open and the others fold away. */
function tablePartHtml(part: Extract<SectionPart, { kind: "table" }>): SafeHtml {
  const table = tableHtml(part.table, part.textColumns, part.trailingText);
  if (part.fold === undefined) return part.title === undefined ? table : html`<h3>${part.title}</h3>${table}`;
  const body = html`<div class="comparison-table">${table}</div>`;
  if (part.fold === "open") return html`<h3>${part.title}</h3>${body}`;
  return html`<details class="comparison"><summary>${part.title}</summary>${body}</details>
`;
}

function partHtml(part: SectionPart, charts: readonly RenderedChart[]): SafeHtml {
  switch (part.kind) {
    case "table":
      return tablePartHtml(part);
    case "entries":
      return html`<dl class="facts">${part.entries.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`;
    case "note":
      return part.only === "markdown" ? rawHtml("") : html`<p class="note">${part.text}</p>`;
    case "page-note":
      return html`<p class="note">${part.html}</p>`;
    case "list":
      return part.items.length === 0
        ? html`<p class="note">${part.empty}</p>`
        : html`<ul class="notes">${part.items.map((item) => html`<li>${item}</li>`)}</ul>`;
    case "charts":
      return html`${charts.map(chartHtml)}`;
    case "dialogues":
      if (part.groups.length === 0) return html`<p class="note">${part.empty}</p>`;
      return html`${part.groups.map(
        ({ condition, dialogues }) => html`<h3>${condition}</h3>
${dialogues.map((record, index) => dialogueHtml(record, index === 0))}`,
      )}`;
  }
}

/**
 * A section: its heading, then its parts line by line. A section with nothing to show leaves one
 * empty line where it would be, as the page has always been laid out.
 */
function sectionHtml(section: ReportSection, charts: readonly RenderedChart[]): SafeHtml {
  if (!isShown(section)) return rawHtml("\n");
  const lines = section.lines.map((line) => html`${line.map((part) => partHtml(part, charts))}`.value);
  return html`

<section id="${section.id}">
<h2>${section.title}</h2>
${rawHtml(lines.join("\n"))}
</section>`;
}

/** Renders report.html from the saved record. Deterministic: the same input gives the same bytes. */
export async function renderHtmlReport(input: ReportInput, built?: ReportModel): Promise<string> {
  const model = built ?? buildReportModel(input);
  // In id order, as the model's tables: sums over dialogues do not depend on the order they finished in.
  const charts = await renderCharts(input.summary, sortedById(input.rows));
  const shown = model.sections.filter(isShown);
  const page = html`${pageHead(model.title)}
<body>
<main>
<h1>${model.title}</h1>
<p class="lede">Adversarial Empathy Benchmark. Every number below is computed from this run's summary.json and dialogues.jsonl.</p>
<dl class="facts">${model.facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>
<nav>${shown.map((section) => html`<a href="#${section.id}">${section.navLabel}</a>`)}</nav>${model.sections.map((section) => sectionHtml(section, charts))}

<footer>Made by aeb report from the saved record; this page loads nothing and runs no script.</footer>
</main>
</body>
</html>
`;
  return page.value;
}
