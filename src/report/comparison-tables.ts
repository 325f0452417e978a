/**
 * The pairwise comparisons of summary.json as compact tables: one row per pair of conditions (both
 * tests of a metric side by side, with the matched difference and its interval), one table per
 * metric and Holm family. The pairs with the reference condition come first, each oriented as
 * "condition vs reference", so a reader sees how far each condition is from the reference and how
 * sure that is; the other pairs follow in their own family.
 *
 * A Holm p at or above 0.05 is read as "not significant", never as "no difference": the interval
 * says which differences the data still allow.
 */
import type { Comparison as ComparisonRow } from "../analysis/summary-schema.js";
import { fixed, formatP } from "./format.js";

/** The level at which the "reading" column calls a difference significant (after Holm). */
export const SIGNIFICANCE_LEVEL = 0.05;

/** What a reader may conclude from a pair's Holm p, in words. */
export const NOT_SIGNIFICANT = "not significant; see the CI";

/** The header of the reading column: the cells say which side is higher at this Holm-adjusted level, or not significant. */
export const READING_HEADER = `reading (Holm p < ${SIGNIFICANCE_LEVEL})`;

export interface ComparisonTableModel {
  /** The metric as the reports name it (`fs`, `ecs:offline-lexicon`, `collapse`...). */
  metric: string;
  /** `reference`: pairs with the reference condition; `other`: the rest; `all`: a summary written before families (one family per metric and test). */
  family: "reference" | "other" | "all";
  title: string;
  table: { header: string[]; rows: string[][] };
}

/** The metrics in reading order: the reward first, the judges' scores, then collapses. */
function metricRank(metric: string): number {
  if (metric === "fs") return 0;
  if (metric === "ecs") return 1;
  if (metric.startsWith("ecs:")) return 2;
  if (metric === "hid") return 3;
  if (metric.startsWith("hid:")) return 4;
  if (metric === "collapse") return 6;
  return 5;
}

const FAMILY_RANK = { reference: 0, other: 1, all: 1 } as const;

const negate = (value: number | null | undefined) => (value === null || value === undefined ? value : value === 0 ? 0 : -value);

/** A p and its Holm-adjusted p in one cell ("4.9e-4 / 0.002"), so each test takes one column. */
function pCell(row: ComparisonRow | undefined): string {
  return row === undefined ? "n/a" : `${formatP(row.p)} / ${formatP(row.pHolm)}`;
}

/** The interval as text, or n/a. */
function differenceCell(difference: ComparisonRow["difference"], flip: boolean, digits = 3): string {
  if (difference === undefined || difference.mean === null || Number.isNaN(difference.mean)) return "n/a";
  const mean = flip ? -difference.mean : difference.mean;
  const plus = (value: number) => `${value > 0 ? "+" : ""}${fixed(value, digits)}`;
  if (difference.ci95 === null) return `${plus(mean)} (no CI)`;
  const [low, high] = flip ? [-difference.ci95[1], -difference.ci95[0]] : difference.ci95;
  return `${plus(mean)} [${plus(low)}, ${plus(high)}]`;
}

/** The reading of one pair: which side is higher when the Holm p is below the level, else "not significant". */
function reading(a: string, b: string, pHolm: number | null | undefined, direction: number | null | undefined, higher = "higher"): string {
  if (pHolm === null || pHolm === undefined || Number.isNaN(pHolm)) return "n/a";
  if (pHolm >= SIGNIFICANCE_LEVEL) return NOT_SIGNIFICANT;
  if (direction === null || direction === undefined || direction === 0 || Number.isNaN(direction)) return "differ";
  return `${direction > 0 ? a : b} ${higher}`;
}

interface PairRows {
  a: string;
  b: string;
  /** Whether the pair is shown the other way round (b vs a): the reference goes second. */
  flip: boolean;
  byTest: Map<string, ComparisonRow>;
}

function familyOf(row: ComparisonRow): ComparisonTableModel["family"] {
  return row.family === "reference" || row.family === "other" ? row.family : "all";
}

function title(metric: string, family: ComparisonTableModel["family"], reference: string | null, pairs: number): string {
  const count = `${pairs} pair${pairs === 1 ? "" : "s"}`;
  if (family === "reference") return `${metric}: each condition against the reference, ${reference ?? "?"} (${count})`;
  if (family === "other") return reference === null ? `${metric}: every pair (${count})` : `${metric}: the other pairs (${count})`;
  return `${metric}: every pair (${count}; Holm over all of them: a summary written before families)`;
}

/**
 * The compact tables of the comparisons (rows already read from summary.json), `metricName`
 * naming each metric as the report shows it. Rows are pairs in the summary's order.
 */
export function comparisonTables(
  rows: readonly ComparisonRow[],
  reference: string | null,
  metricName: (metric: string) => string = (metric) => metric,
): ComparisonTableModel[] {
  const groups = new Map<string, { metric: string; family: ComparisonTableModel["family"]; pairs: Map<string, PairRows> }>();
  for (const row of rows) {
    const metric = metricName(row.metric);
    const family = familyOf(row);
    const key = `${metric}\u0000${family}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { metric, family, pairs: new Map() }));
    const pairKey = `${row.a}\u0000${row.b}`;
    let pair = group.pairs.get(pairKey);
    if (pair === undefined)
      group.pairs.set(pairKey, (pair = { a: row.a, b: row.b, flip: family === "reference" && row.a === reference, byTest: new Map() }));
    pair.byTest.set(row.test, row);
  }
  return [...groups.values()]
    .sort(
      (x, y) =>
        metricRank(x.metric) - metricRank(y.metric) ||
        FAMILY_RANK[x.family] - FAMILY_RANK[y.family] ||
        (x.metric < y.metric ? -1 : x.metric > y.metric ? 1 : 0),
    )
    .map(({ metric, family, pairs }) => ({
      metric,
      family,
      title: title(metric, family, reference, pairs.size),
      table: metric === "collapse" ? collapseTable([...pairs.values()]) : rankTestTable([...pairs.values()]),
    }));
}

/** FS, ECS, HID: the matched Wilcoxon (with the difference) beside the paper's Mann-Whitney, one row per pair. */
function rankTestTable(pairs: readonly PairRows[]): ComparisonTableModel["table"] {
  return {
    header: [
      "a",
      "b",
      "scenarios",
      "a − b [95% CI] (matched)",
      "Wilcoxon p / Holm p",
      "r",
      "dialogues",
      "Mann-Whitney p / Holm p",
      "r",
      READING_HEADER,
    ],
    rows: pairs.map(({ a, b, flip, byTest }) => {
      const matched = byTest.get("wilcoxon");
      const unmatched = byTest.get("mannwhitney");
      const [shownA, shownB] = flip ? [b, a] : [a, b];
      const orient = (value: number | null | undefined) => (flip ? negate(value) : value);
      const decisive = matched ?? unmatched;
      const direction = matched?.difference?.mean ?? orient(decisive?.r ?? null) ?? null;
      return [
        shownA,
        shownB,
        matched === undefined ? "n/a" : String(matched.n),
        differenceCell(matched?.difference, flip),
        pCell(matched),
        fixed(orient(matched?.r)),
        unmatched === undefined ? "n/a" : String(unmatched.n),
        pCell(unmatched),
        fixed(orient(unmatched?.r)),
        reading(shownA, shownB, decisive?.pHolm, matched === undefined ? orient(decisive?.r) : flip ? negate(direction) : direction),
      ];
    }),
  };
}

/** Collapses: exact McNemar on the pairs matched by scenario and repeat, with the difference of collapse rates. */
function collapseTable(pairs: readonly PairRows[]): ComparisonTableModel["table"] {
  return {
    header: ["a", "b", "matched pairs", "collapse rate a − b [95% CI]", "collapsed: a only / b only", "McNemar p / Holm p", READING_HEADER],
    rows: pairs.map(({ a, b, flip, byTest }) => {
      const row = byTest.get("mcnemar");
      const [shownA, shownB] = flip ? [b, a] : [a, b];
      const discordant =
        row?.discordant === undefined
          ? "n/a"
          : flip
            ? `${row.discordant.bOnly} / ${row.discordant.aOnly}`
            : `${row.discordant.aOnly} / ${row.discordant.bOnly}`;
      const mean =
        row?.difference?.mean ??
        (row?.meanA !== null && row?.meanA !== undefined && row.meanB !== null && row.meanB !== undefined ? row.meanA - row.meanB : null);
      return [
        shownA,
        shownB,
        row === undefined ? "n/a" : String(row.n),
        differenceCell(row?.difference, flip),
        discordant,
        pCell(row),
        reading(shownA, shownB, row?.pHolm, flip ? negate(mean) : mean, "collapsed more"),
      ];
    }),
  };
}
