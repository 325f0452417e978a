import { comparisonTables, SIGNIFICANCE_LEVEL, type ComparisonTableModel } from "../comparison-tables.js";
import type { ReportReading } from "../report-reading.js";
import { noteParts, type ReportSection, type SectionPart } from "./section.js";

/** The compact comparison tables (comparison-tables.ts): the reference family's first. */
export function comparisonTablesOf(reading: ReportReading): ComparisonTableModel[] {
  const { namedJudges, headlineJudge, hasHeadlineField, summary } = reading;
  // An older summary named its first ECS judge's comparisons `ecs` whatever the judge was; shown by name unless it is the headline.
  const legacyEcsJudge = !hasHeadlineField && namedJudges[0] !== undefined && namedJudges[0] !== headlineJudge ? namedJudges[0] : null;
  const metricName = (metric: string) => (metric === "ecs" && legacyEcsJudge !== null ? `ecs:${legacyEcsJudge}` : metric);
  return comparisonTables(summary.comparisons, summary.reference ?? null, metricName);
}

/** How the Holm p of these tables was adjusted. */
function familiesSentence(reading: ReportReading, tables: readonly ComparisonTableModel[]): string {
  const reference = reading.summary.reference ?? null;
  if (tables.some((table) => table.family === "all"))
    return " Holm p: adjusted over every comparison of one metric and test (this summary.json predates the reference family; aeb report --recompute gives it).";
  if (reference === null)
    return " Holm p: adjusted over every pair of one metric and test (no reference condition: name one with report.reference in the run config or aeb report --reference).";
  return ` Holm p: adjusted within each family of one metric and test: the pairs with the reference condition ${reference} are one family, every other pair another, so adding conditions does not dilute the comparisons against the reference (docs/statistics.md).`;
}

/** What the metric names, the tests, r and the reading mean, under the tables. */
function comparisonsLegend(reading: ReportReading, tables: readonly ComparisonTableModel[]): string {
  const { headlineJudge, ecsKinds, offlineUser } = reading;
  return [
    `Metrics: fs the final score; hid the simulated user's HID${offlineUser ? " (offline: the reward's move test, not independent)" : ""}`,
    headlineJudge !== null
      ? `; ecs the headline ECS judge's score (${headlineJudge}, a model judge), ecs:NAME another ECS judge's`
      : "; ecs:NAME an ECS judge's score (there is no headline ECS: no model judge ran)",
    ecsKinds.heuristics.length > 0
      ? ` (${ecsKinds.heuristics.map((heuristic) => `ecs:${heuristic.name} is the ${heuristic.label}, not a model judge`).join("; ")})`
      : "",
    "; hid:NAME an independent HID judge's verdict; collapse the share of dialogues that collapsed.",
    " Each row is one pair, a against b (against the reference, the reference is b); each test's cell gives its p and its Holm-adjusted p.",
    " a − b [95% CI]: the mean of the matched differences (per-scenario means of the scenarios both ran; for collapse, the matched dialogues' collapse indicators) with a seeded percentile-bootstrap 95% interval.",
    " Tests: Wilcoxon signed-rank over those per-scenario means; Mann-Whitney over dialogues (the paper's); exact McNemar on collapses, matched by scenario and repeat.",
    familiesSentence(reading, tables),
    " r: the effect size, positive when a tends to score higher than b (docs/statistics.md): Wilcoxon's matched-pairs rank-biserial, Mann-Whitney's rank-biserial.",
    ` Reading: which side is higher when the Holm p (of the matched test, else Mann-Whitney) is below ${SIGNIFICANCE_LEVEL} (for collapse, which collapsed more); otherwise "not significant": the data do not show a difference at that level, which is not evidence that the conditions are equal. The CI gives the differences the data still allow.`,
  ].join("");
}

/** One table per metric and family; the first open, the others folded (one line each until opened). */
export function comparisonsSection(reading: ReportReading): ReportSection {
  const tables = comparisonTablesOf(reading);
  const parts = tables.map(({ title, table }, index): SectionPart => ({
    kind: "table",
    title,
    table,
    textColumns: 2,
    trailingText: 1,
    fold: index === 0 ? "open" : "folded",
  }));
  return {
    id: "comparisons",
    title: "Pairwise comparisons",
    navLabel: "Comparisons",
    lines: [
      parts,
      noteParts(tables.length === 0 ? "No comparisons: summary.json lists none." : null),
      noteParts(tables.length === 0 ? null : comparisonsLegend(reading, tables)),
    ],
  };
}
