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
    for (const [a, b] of pairs) {
      const recordsA = byCondition.get(a) ?? [];
      const recordsB = byCondition.get(b) ?? [];
      const valuesA = recordsA.map(read).filter((value): value is number => value !== null);
      const valuesB = recordsB.map(read).filter((value): value is number => value !== null);
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
      const matched = matchScenarioMeans(recordsA, recordsB, read);
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

  for (const [a, b] of pairs) {
    const pairsMatched = matchDialogues(byCondition.get(a) ?? [], byCondition.get(b) ?? []);
    if (pairsMatched.length === 0) continue;
    const collapsedA = pairsMatched.map(([recordA]) => recordA.endReason === "collapse");
    const collapsedB = pairsMatched.map(([, recordB]) => recordB.endReason === "collapse");
    const test = mcnemarFromPairs(collapsedA, collapsedB);
    const differences = collapsedA.map((collapsed, index) => Number(collapsed) - Number(collapsedB[index]));
    raw.push({
      metric: "collapse",
      test: "mcnemar",
      a,
      b,
      n: pairsMatched.length,
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
  for (const [a, b] of pairs) {
    const metricsA = (byCondition.get(a) ?? []).map((dialogue) => lengthAndFs(dialogue));
    const metricsB = (byCondition.get(b) ?? []).map((dialogue) => lengthAndFs(dialogue));
    if (metricsA.length < 2 || metricsB.length < 2) continue;
    const fsA = metricsA.map((metric) => metric.fs);
    const fsB = metricsB.map((metric) => metric.fs);
    const lengthA = metricsA.map((metric) => metric.meanReplyChars);
    const lengthB = metricsB.map((metric) => metric.meanReplyChars);
    const rho = (x: number[], y: number[]) => finite(spearman(x, y).rho);
    const base = { a, b, rhoA: rho(lengthA, fsA), rhoB: rho(lengthB, fsB) };
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

/** Per-scenario means of the scenarios both conditions ran, in scenario order. */
export function matchScenarioMeans<T extends ComparableDialogue = DialogueRow>(
  recordsA: readonly T[],
  recordsB: readonly T[],
  read: MetricReader<T>,
): { scenarios: string[]; a: number[]; b: number[] } {
  const meansOf = (records: readonly T[]) => {
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
  };
  const meansA = meansOf(recordsA);
  const meansB = meansOf(recordsB);
  const scenarios = [...meansA.keys()].filter((scenario) => meansB.has(scenario)).sort();
  return {
    scenarios,
    a: scenarios.map((scenario) => meansA.get(scenario) as number),
    b: scenarios.map((scenario) => meansB.get(scenario) as number),
  };
}

/** Dialogue pairs matched by scenario and repeat. */
export function matchDialogues<T extends ComparableDialogue = DialogueRow>(recordsA: readonly T[], recordsB: readonly T[]): Array<[T, T]> {
  const key = (record: T) => `${record.scenarioId}#${record.repeat}`;
  const indexB = new Map(recordsB.map((record) => [key(record), record]));
  // Each key made once, and compared by a collator made once: the order localeCompare gives (it
  // is defined as this collator's compare), without two strings and a collator per comparison.
  const keyed = recordsA.map((record) => ({ key: key(record), record })).filter((entry) => indexB.has(entry.key));
  const collator = new Intl.Collator();
  return keyed.sort((x, y) => collator.compare(x.key, y.key)).map((entry) => [entry.record, indexB.get(entry.key) as T]);
}
