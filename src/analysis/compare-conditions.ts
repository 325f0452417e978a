import type { DialogueRecord } from "../core/dialogue.js";
import { deriveSeed } from "../core/random.js";
import { mean, type DialogueMetrics } from "../metrics/dialogue-metrics.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { bootstrapMeanCI } from "../stats/bootstrap.js";
import { holmAdjust } from "../stats/holm.js";
import { lengthConfound } from "../stats/length-confound.js";
import { mannWhitneyU } from "../stats/mann-whitney.js";
import { mcnemarFromPairs } from "../stats/mcnemar.js";
import { spearman } from "../stats/spearman.js";
import { wilcoxonSignedRank } from "../stats/wilcoxon.js";
import type { Comparison, ComparisonFamily, LengthConfoundRow, MeanWithCI } from "./summary-schema.js";

export type { Comparison, ComparisonFamily, LengthConfoundRow } from "./summary-schema.js";

/** How the comparisons are made beyond the data: the seed of the difference intervals and the reference condition. */
export interface ComparisonOptions {
  /** The run seed; each difference interval's bootstrap seed derives from it, the metric, the test and the pair. */
  seed: number;
  /**
   * The reference condition: its pairs with every other condition form their own Holm family
   * ("reference"), the remaining pairs another ("other"). Null or absent: every pair is in "other".
   */
  reference?: string | null;
}

/** A per-dialogue number to compare conditions on; null excludes the dialogue (counted in notes). */
export type MetricReader<T = DialogueRow> = (dialogue: T) => number | null;

/** What the comparisons read of every dialogue, whether a full record or its compact row (metrics/dialogue-row.ts). */
export interface ComparableDialogue {
  status: DialogueRecord["status"];
  condition: string;
  scenarioId: string;
  repeat: number;
  endReason: DialogueRecord["endReason"];
}

/** FS and mean reply length of a dialogue, for the length-confound check. */
type LengthAndFs<T> = (dialogue: T) => Pick<DialogueMetrics, "fs" | "meanReplyChars">;

export interface ComparisonSet {
  comparisons: Comparison[];
  lengthConfound: LengthConfoundRow[];
  notes: string[];
}

const finite = (value: number) => (Number.isFinite(value) ? value : null);

/**
 * Compares every pair of conditions on every metric: Mann-Whitney over dialogues (the paper's),
 * Wilcoxon signed-rank over per-scenario means of the scenarios both ran (scenario-matched), exact
 * McNemar on collapses matched by scenario and repeat, and the OLS length-confound check on FS.
 * The matched tests carry the mean matched difference a - b with a seeded bootstrap interval.
 * Holm adjusts within each metric, test and family: the pairs with the reference condition are one
 * family, every other pair another (docs/statistics.md, "Families"), so a run of many conditions
 * does not dilute the comparisons a reader came for. Too little data gives a note, never a number.
 */
export function compareConditions(
  rows: readonly DialogueRow[],
  conditionOrder: readonly string[],
  metrics: Record<string, MetricReader<DialogueRow>>,
  options: ComparisonOptions,
): ComparisonSet {
  return compareDialogues(rows, conditionOrder, metrics, (row) => row.metrics, options);
}

/** The mean of matched differences with its seeded bootstrap interval (null below two pairs: no interval from one). */
function matchedDifference(differences: readonly number[], seed: number): MeanWithCI {
  if (differences.length < 2) return { mean: differences.length === 0 ? null : mean([...differences]), ci95: null };
  return bootstrapMeanCI(differences, { seed });
}

function compareDialogues<T extends ComparableDialogue>(
  records: readonly T[],
  conditionOrder: readonly string[],
  metrics: Record<string, MetricReader<T>>,
  lengthAndFs: LengthAndFs<T>,
  options: ComparisonOptions,
): ComparisonSet {
  const reference = options.reference ?? null;
  const familyOf = (a: string, b: string): ComparisonFamily =>
    reference !== null && (a === reference || b === reference) ? "reference" : "other";
  const differenceSeed = (metric: string, test: string, a: string, b: string) => deriveSeed(options.seed, "difference", metric, test, a, b);
  const scored = records.filter((record) => record.status === "done");
  const byCondition = new Map(conditionOrder.map((name) => [name, scored.filter((record) => record.condition === name)]));
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < conditionOrder.length; i += 1)
    for (let j = i + 1; j < conditionOrder.length; j += 1) pairs.push([conditionOrder[i] as string, conditionOrder[j] as string]);
  const notes: string[] = [];
  const raw: Array<Omit<Comparison, "pHolm" | "family">> = [];

  for (const [metric, read] of Object.entries(metrics)) {
    // Each condition's values and scenario means once per metric, not once per pair it is in: at
    // 100,000 dialogues the per-pair copies were most of the summary's garbage (and its peak heap).
    const valuesOf = perCondition(byCondition, (records) => records.map(read).filter((value): value is number => value !== null));
    const scenarioMeansOf = perCondition(byCondition, (records) => scenarioMeans(records, read));
    for (const [a, b] of pairs) {
      const valuesA = valuesOf(a);
      const valuesB = valuesOf(b);
      if (valuesA.length < 2 || valuesB.length < 2) {
        if (valuesA.length + valuesB.length > 0)
          notes.push(`${metric} ${a} vs ${b}: too few dialogues (${valuesA.length} and ${valuesB.length}) for a test`);
      } else {
        const test = mannWhitneyU(valuesA, valuesB);
        raw.push({
          metric,
          test: "mannwhitney",
          a,
          b,
          n: valuesA.length + valuesB.length,
          p: test.p,
          r: finite(test.rankBiserial),
          effectR: finite(test.effectR),
          meanA: mean(valuesA),
          meanB: mean(valuesB),
          method: test.method,
        });
      }
      const matched = matchedMeans(scenarioMeansOf(a), scenarioMeansOf(b));
      if (matched.a.length === 0) {
        if (valuesA.length > 0 && valuesB.length > 0) notes.push(`${metric} ${a} vs ${b}: no scenario in common, no matched test`);
      } else if (matched.a.length < 2) {
        notes.push(`${metric} ${a} vs ${b}: only ${matched.a.length} matched scenario, no matched test`);
      } else {
        const test = wilcoxonSignedRank(matched.a, matched.b);
        const differences = matched.a.map((value, index) => value - (matched.b[index] as number));
        raw.push({
          metric,
          test: "wilcoxon",
          a,
          b,
          n: matched.a.length,
          p: test.p,
          r: finite(test.matchedPairsRankBiserial),
          effectR: finite(test.effectR),
          meanA: mean(matched.a),
          meanB: mean(matched.b),
          method: test.method,
          difference: matchedDifference(differences, differenceSeed(metric, "wilcoxon", a, b)),
        });
      }
    }
  }

  const keyedOf = perCondition(byCondition, (records) => keyedByScenarioRepeat(records));
  for (const [a, b] of pairs) {
    const { collapsedA, collapsedB } = matchedCollapses(keyedOf(a), keyedOf(b));
    if (collapsedA.length === 0) continue;
    const test = mcnemarFromPairs(collapsedA, collapsedB);
    const differences = collapsedA.map((collapsed, index) => Number(collapsed) - Number(collapsedB[index]));
    raw.push({
      metric: "collapse",
      test: "mcnemar",
      a,
      b,
      n: collapsedA.length,
      p: test.p,
      r: null,
      effectR: null,
      meanA: mean(collapsedA.map(Number)),
      meanB: mean(collapsedB.map(Number)),
      discordant: { aOnly: test.b, bOnly: test.c },
      difference: matchedDifference(differences, differenceSeed("collapse", "mcnemar", a, b)),
    });
  }

  // A test can be undefined (every value tied, every difference zero): say so, never print a NaN p.
  for (const row of raw.filter((candidate) => !Number.isFinite(candidate.p))) {
    notes.push(
      `${row.metric} ${row.test} ${row.a} vs ${row.b}: the test is undefined for these data (all values tied or all differences zero)`,
    );
  }
  const families = new Map<string, Array<Omit<Comparison, "pHolm">>>();
  const comparisons: Comparison[] = [];
  for (const row of raw.filter((candidate) => Number.isFinite(candidate.p))) {
    const key = `${row.metric}/${row.test}/${familyOf(row.a, row.b)}`;
    families.set(key, [...(families.get(key) ?? []), { ...row, family: familyOf(row.a, row.b) }]);
  }
  for (const family of families.values()) {
    const adjusted = holmAdjust(family.map((row) => row.p));
    // pHolm before the fields added later, so older readers find the rows as they were.
    family.forEach(({ family: name, difference, ...row }, index) =>
      comparisons.push({ ...row, pHolm: adjusted[index] as number, family: name, ...(difference === undefined ? {} : { difference }) }),
    );
  }
  comparisons.sort(
    (x, y) =>
      [x.metric, x.test].join("/").localeCompare([y.metric, y.test].join("/")) ||
      conditionOrder.indexOf(x.a) - conditionOrder.indexOf(y.a) ||
      conditionOrder.indexOf(x.b) - conditionOrder.indexOf(y.b),
  );

  return { comparisons, lengthConfound: lengthConfoundRows(pairs, byCondition, notes, lengthAndFs), notes };
}

function lengthConfoundRows<T>(
  pairs: Array<[string, string]>,
  byCondition: Map<string, T[]>,
  notes: string[],
  lengthAndFs: LengthAndFs<T>,
): LengthConfoundRow[] {
  const rows: LengthConfoundRow[] = [];
  // Each condition's FS and lengths, and its length-FS correlation, once (not once per pair it is in).
  const columnsOf = perCondition(byCondition, (dialogues) => {
    const fs: number[] = [];
    const length: number[] = [];
    for (const dialogue of dialogues) {
      const metric = lengthAndFs(dialogue);
      fs.push(metric.fs);
      length.push(metric.meanReplyChars);
    }
    return { fs, length };
  });
  const rhos = new Map<string, number | null>();
  const rhoOf = (condition: string): number | null => {
    if (!rhos.has(condition)) {
      const { fs, length } = columnsOf(condition);
      rhos.set(condition, finite(spearman(length, fs).rho));
    }
    return rhos.get(condition) as number | null;
  };
  for (const [a, b] of pairs) {
    const { fs: fsA, length: lengthA } = columnsOf(a);
    const { fs: fsB, length: lengthB } = columnsOf(b);
    if (fsA.length < 2 || fsB.length < 2) continue;
    const base = { a, b, rhoA: rhoOf(a), rhoB: rhoOf(b) };
    try {
      const result = lengthConfound(fsA, fsB, lengthA, lengthB);
      rows.push({
        ...base,
        coefficient: result.unadjusted.coefficient,
        p: result.unadjusted.p,
        coefficientAdjusted: result.adjusted.coefficient,
        pAdjusted: result.adjusted.p,
      });
    } catch (error) {
      const message = (error as Error).message;
      notes.push(`length confound ${a} vs ${b}: ${message}`);
      const difference = mean(fsB) - mean(fsA);
      rows.push({ ...base, coefficient: difference, p: Number.NaN, coefficientAdjusted: null, pAdjusted: null, note: message });
    }
  }
  return rows;
}

/** `compute` of each condition's dialogues, made on first use and kept (a condition with none gets an empty list). */
function perCondition<T, R>(
  byCondition: ReadonlyMap<string, readonly T[]>,
  compute: (dialogues: readonly T[]) => R,
): (condition: string) => R {
  const made = new Map<string, R>();
  return (condition) => {
    let result = made.get(condition);
    if (result === undefined) {
      result = compute(byCondition.get(condition) ?? []);
      made.set(condition, result);
    }
    return result;
  };
}

/** The mean of a metric per scenario over these dialogues (null values left out), scenarios in first-seen order. */
function scenarioMeans<T extends ComparableDialogue>(records: readonly T[], read: MetricReader<T>): Map<string, number> {
  const values = new Map<string, number[]>();
  for (const record of records) {
    const value = read(record);
    if (value === null) continue;
    // Pushed in place: copying the list at every value made each scenario's list quadratic in its dialogues.
    const list = values.get(record.scenarioId);
    if (list === undefined) values.set(record.scenarioId, [value]);
    else list.push(value);
  }
  return new Map([...values].map(([scenario, list]) => [scenario, mean(list)]));
}

/** The scenarios both sides have means for, in scenario order, with each side's mean. */
function matchedMeans(
  meansA: ReadonlyMap<string, number>,
  meansB: ReadonlyMap<string, number>,
): { scenarios: string[]; a: number[]; b: number[] } {
  const scenarios = [...meansA.keys()].filter((scenario) => meansB.has(scenario)).sort();
  return {
    scenarios,
    a: scenarios.map((scenario) => meansA.get(scenario) as number),
    b: scenarios.map((scenario) => meansB.get(scenario) as number),
  };
}

/** Per-scenario means of the scenarios both conditions ran, in scenario order. */
export function matchScenarioMeans<T extends ComparableDialogue = DialogueRow>(
  recordsA: readonly T[],
  recordsB: readonly T[],
  read: MetricReader<T>,
): { scenarios: string[]; a: number[]; b: number[] } {
  return matchedMeans(scenarioMeans(recordsA, read), scenarioMeans(recordsB, read));
}

/** One condition's dialogues by `scenario#repeat`: the last of a key (as a lookup keeps it), and all in key order (a stable sort). */
interface KeyedDialogues<T> {
  byKey: Map<string, T>;
  sorted: Array<{ key: string; record: T }>;
}

function keyedByScenarioRepeat<T extends ComparableDialogue>(records: readonly T[]): KeyedDialogues<T> {
  const keyed = records.map((record) => ({ key: `${record.scenarioId}#${record.repeat}`, record }));
  const byKey = new Map(keyed.map((entry) => [entry.key, entry.record]));
  // Each key made once, and compared by a collator made once: the order localeCompare gives (it
  // is defined as this collator's compare), without two strings and a collator per comparison.
  const collator = new Intl.Collator();
  return { byKey, sorted: keyed.sort((x, y) => collator.compare(x.key, y.key)) };
}

/**
 * Dialogue pairs matched by scenario and repeat, in A's key order: what {@link matchDialogues}
 * gives, from keys made and sorted once per condition (filtering a stably sorted list keeps the
 * order a stable sort of the filtered list gives).
 */
function matchedPairs<T>(a: KeyedDialogues<T>, b: KeyedDialogues<T>): Array<[T, T]> {
  const pairs: Array<[T, T]> = [];
  for (const { key, record } of a.sorted) {
    const other = b.byKey.get(key);
    if (other !== undefined) pairs.push([record, other]);
  }
  return pairs;
}

/** Whether each side of each matched pair collapsed, in pair order (McNemar's input), without keeping the pairs. */
function matchedCollapses<T extends ComparableDialogue>(
  a: KeyedDialogues<T>,
  b: KeyedDialogues<T>,
): { collapsedA: boolean[]; collapsedB: boolean[] } {
  const collapsedA: boolean[] = [];
  const collapsedB: boolean[] = [];
  for (const { key, record } of a.sorted) {
    const other = b.byKey.get(key);
    if (other === undefined) continue;
    collapsedA.push(record.endReason === "collapse");
    collapsedB.push(other.endReason === "collapse");
  }
  return { collapsedA, collapsedB };
}

/** Dialogue pairs matched by scenario and repeat. */
export function matchDialogues<T extends ComparableDialogue = DialogueRow>(recordsA: readonly T[], recordsB: readonly T[]): Array<[T, T]> {
  return matchedPairs(keyedByScenarioRepeat(recordsA), keyedByScenarioRepeat(recordsB));
}
