/**
 * `aeb agreement`'s output: a text table for the terminal, agreement.md, and a self-contained
 * agreement.html with the tables and two charts per pair of simulated users (per-agent means under
 * A and B; final emotions of matched dialogues, A against B), rendered like the run report's
 * charts (Vega-Lite to SVG in Node, nothing loaded). Pure functions of agreement.json.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentAgreement, AgreementReport, DialogueAgreement, PairAgreement } from "../analysis/agreement-schema.js";
import { agreementMeansSpec } from "./charts/agreement-means.js";
import { agreementScatterSpec } from "./charts/agreement-scatter.js";
import { renderVegaLiteSvg } from "./charts/render-chart.js";
import { fixed, markdownTable, markdownText, percent, textTable } from "./format.js";
import { html, rawHtml } from "./html.js";
import { pageHead, tableHtml } from "./html-report.js";
import type { Table } from "./report-model.js";
import { ensureWritableDirectory } from "../record/run-directory.js";

/** How many unmatched dialogues the text and markdown list by name (agreement.json lists all). */
const UNMATCHED_SHOWN = 10;

const AGENT_HEADER = [
  "agent",
  "matched",
  "mean A",
  "mean B",
  "shift B - A [95% CI]",
  "Pearson r",
  "Spearman rho",
  "same outcome",
  "only in A",
  "only in B",
];

function signedFixed(value: number, digits: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
}

function shiftCell(agent: AgentAgreement): string {
  if (agent.shift.mean === null) return "n/a";
  const interval =
    agent.shift.ci95 === null
      ? " (n too small for CI)"
      : ` [${signedFixed(agent.shift.ci95[0], 1)}, ${signedFixed(agent.shift.ci95[1], 1)}]`;
  return `${signedFixed(agent.shift.mean, 1)}${interval}`;
}

function sameOutcomeCell(figures: DialogueAgreement): string {
  return figures.sameOutcomeShare === null ? "n/a" : `${percent(figures.sameOutcomeShare)} (${figures.sameOutcome}/${figures.n})`;
}

/** The per-agent table of a pair, with the pooled row last. */
export function agentTable(pair: PairAgreement): Table {
  const rows = pair.agents.map((agent) => [
    agent.agent,
    String(agent.n),
    fixed(agent.meanA, 1),
    fixed(agent.meanB, 1),
    shiftCell(agent),
    fixed(agent.pearson),
    fixed(agent.spearman),
    sameOutcomeCell(agent),
    String(agent.onlyInA),
    String(agent.onlyInB),
  ]);
  if (pair.agents.length > 1) {
    rows.push([
      "pooled",
      String(pair.pooled.n),
      "",
      "",
      "",
      fixed(pair.pooled.pearson),
      fixed(pair.pooled.spearman),
      sameOutcomeCell(pair.pooled),
      "",
      "",
    ]);
  }
  return { header: AGENT_HEADER, rows };
}

/** The ranking table of a pair: each agent's mean and rank under both users over the shared units. */
export function rankingTable(pair: PairAgreement): Table {
  return {
    header: ["agent", "mean A", "rank A", "mean B", "rank B"],
    rows: pair.ranking.agents.map((agent) => [
      agent.agent,
      fixed(agent.meanA, 1),
      String(agent.rankA),
      fixed(agent.meanB, 1),
      String(agent.rankB),
    ]),
  };
}

function correlationText(name: string, value: PairAgreement["ranking"]["spearman"]): string {
  if (value === null) return `${name} n/a`;
  return `${name} ${fixed(value.value)}${value.ci95 === null ? "" : ` [${fixed(value.ci95[0])}, ${fixed(value.ci95[1])}]`}`;
}

/** One line on the rank correlations: over how many units, each with its 95% interval. */
export function rankingLine(pair: PairAgreement): string {
  if (pair.ranking.spearman === null)
    return `rank agreement: n/a (${pair.sharedAgents.length} shared agent(s), ${pair.ranking.units} shared unit(s))`;
  return `rank agreement of the ${pair.sharedAgents.length} shared agents over ${pair.ranking.units} (scenario, repeat) units, 95% CI by a percentile bootstrap of the units: ${correlationText("Spearman", pair.ranking.spearman)}; ${correlationText("Kendall tau-b", pair.ranking.kendall)}`;
}

function unmatchedLines(pair: PairAgreement): string[] {
  if (pair.unmatched.length === 0) return [];
  const shown = pair.unmatched
    .slice(0, UNMATCHED_SHOWN)
    .map(
      (dialogue) => `${dialogue.agent} ${dialogue.scenarioId} repeat ${dialogue.repeat} (only in ${dialogue.in === "a" ? pair.a : pair.b})`,
    );
  return [
    `unmatched dialogues: ${shown.join("; ")}${pair.unmatched.length > UNMATCHED_SHOWN ? `; and ${pair.unmatched.length - UNMATCHED_SHOWN} more (all in agreement.json)` : ""}`,
  ];
}

function usersLines(report: AgreementReport): string[] {
  return report.users.map(
    (user) =>
      `${user.label}: ${user.dialogues} scored dialogue(s)${user.errors > 0 ? ` (+${user.errors} in error, left out)` : ""} of ${user.agents.length} agent(s), from ${user.sources.join(", ")}`,
  );
}

const LEGEND =
  "Mean A, mean B: mean final emotion (0-100) over the agent's matched dialogues; shift: their mean difference B - A with a seeded paired percentile-bootstrap 95% CI; Pearson r, Spearman rho: correlation of the final emotions of the same dialogue (same agent, scenario and repeat) under A and B; same outcome: matched dialogues that ended in the same class (success, collapse, neither) under both.";

/** The agreement for a terminal. */
export function renderAgreementText(report: AgreementReport): string {
  const parts = [usersLines(report).join("\n")];
  for (const pair of report.pairs) {
    const table = agentTable(pair);
    parts.push(
      [
        `== A: ${pair.a}  vs  B: ${pair.b}`,
        pair.finding,
        "",
        textTable(table.header, table.rows),
        "",
        rankingLine(pair),
        ...pair.notes.map((note) => `note: ${note}`),
        ...unmatchedLines(pair),
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}

/** agreement.md. */
export function renderAgreementMarkdown(report: AgreementReport): string {
  const lines = [
    "# AEB simulated-user agreement",
    "",
    ...usersLines(report).map((line) => `- ${markdownText(line)}`),
    "",
    `Bootstrap: ${report.resamples} resamples, seed ${report.seed}.`,
    "",
  ];
  for (const pair of report.pairs) {
    const agents = agentTable(pair);
    const ranking = rankingTable(pair);
    lines.push(
      `## A: ${markdownText(pair.a)} vs B: ${markdownText(pair.b)}`,
      "",
      markdownText(pair.finding),
      "",
      markdownTable(agents.header, agents.rows),
      "",
      markdownText(LEGEND),
      "",
    );
    if (ranking.rows.length > 0) lines.push("### Ranking", "", markdownTable(ranking.header, ranking.rows), "");
    lines.push(markdownText(rankingLine(pair)), "");
    const notes = [...pair.notes, ...unmatchedLines(pair)];
    if (notes.length > 0) lines.push("### Notes", "", ...notes.map((note) => `- ${markdownText(note)}`), "");
  }
  lines.push("Charts: see agreement.html.", "");
  return lines.join("\n");
}

/** agreement.html: one self-contained page. Deterministic: the same report gives the same bytes. */
export async function renderAgreementHtml(report: AgreementReport): Promise<string> {
  const sections = [];
  for (const [index, pair] of report.pairs.entries()) {
    const means = await renderVegaLiteSvg(agreementMeansSpec(pair), `agreement-${index + 1}-means`);
    const scatter = await renderVegaLiteSvg(agreementScatterSpec(pair), `agreement-${index + 1}-dialogues`);
    const ranking = rankingTable(pair);
    sections.push(html`<section id="pair-${index + 1}">
<h2>A: ${pair.a} vs B: ${pair.b}</h2>
<p><strong>${pair.finding}</strong></p>
${tableHtml(agentTable(pair))}
<p class="note">${LEGEND}</p>
${ranking.rows.length > 0 ? html`<h3>Ranking</h3>${tableHtml(ranking)}` : ""}
<p class="note">${rankingLine(pair)}</p>
<figure class="chart" id="chart-pair-${index + 1}-means"><h3>Mean final emotion per agent, under A and under B</h3><div class="svg-box">${rawHtml(means.svg)}</div>
<figcaption>Each line is an agent, over the (scenario, repeat) units every shared agent has under both simulated users. Parallel lines: the users differ by a level shift and keep the ranking; crossing lines: they rank the agents differently.</figcaption></figure>
<figure class="chart" id="chart-pair-${index + 1}-dialogues"><h3>Final emotion of each matched dialogue, A against B</h3><div class="svg-box">${rawHtml(scatter.svg)}</div>
<figcaption>Each point is a final emotion under A (x) and under B (y) for the same agent, scenario and repeat; larger points stand for more dialogues. On the dashed diagonal the two users agree; a cloud far from it means they judge the same profile differently, even where they rank the agents alike.</figcaption></figure>
${pair.notes.length + pair.unmatched.length > 0 ? html`<h3>Notes</h3><ul class="notes">${[...pair.notes, ...unmatchedLines(pair)].map((note) => html`<li>${note}</li>`)}</ul>` : ""}
</section>`);
  }
  const page = html`${pageHead("AEB simulated-user agreement")}
<body>
<main>
<h1>AEB simulated-user agreement</h1>
<p class="lede">How far a score travels: the same agents scored by different simulated users, matched agent by agent and dialogue by dialogue. Computed from agreement.json.</p>
<ul>${usersLines(report).map((line) => html`<li>${line}</li>`)}</ul>
<p class="note">Bootstrap: ${report.resamples} resamples, seed ${report.seed}. Agents are matched by condition name (a SAGE file's name without _result.jsonl), dialogues by agent, scenario and repeat.</p>
${sections}
<footer>Made by aeb agreement; this page loads nothing and runs no script.</footer>
</main>
</body>
</html>
`;
  return page.value;
}

/** The files of `aeb agreement --out DIR`. */
export const AGREEMENT_FILES = { json: "agreement.json", markdown: "agreement.md", html: "agreement.html" } as const;

/** Writes agreement.json, agreement.md and agreement.html into `dir` (made if missing); returns their paths. */
export async function writeAgreementFiles(dir: string, report: AgreementReport): Promise<string[]> {
  ensureWritableDirectory(dir);
  const page = await renderAgreementHtml(report);
  const paths = [join(dir, AGREEMENT_FILES.json), join(dir, AGREEMENT_FILES.markdown), join(dir, AGREEMENT_FILES.html)];
  writeFileSync(paths[0] as string, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(paths[1] as string, renderAgreementMarkdown(report));
  writeFileSync(paths[2] as string, page);
  return paths;
}
