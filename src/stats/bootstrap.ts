/**
 * Seeded percentile bootstrap confidence interval for a mean.
 *
 * Makes no normality assumption, which suits bounded, lumpy scores such as FS in [0, 1].
 * Every random draw comes from `createRng(seed)`, so the same values and seed give the same
 * interval on every machine, byte for byte, and a report can be regenerated exactly.
 *
 * Procedure (fixed, because reproducibility depends on the order of draws):
 * 1. For each of `resamples` rounds, draw n indices with `rng.int(0, n − 1)` (n draws per
 *    round, rounds one after another) and average the values at those indices, summing in
 *    draw order.
 * 2. Sort the resampled means and take the (1 − confidence)/2 and 1 − (1 − confidence)/2
 *    quantiles with linear interpolation between order statistics (NumPy's default
 *    `percentile` method, R type 7).
 *
 * A Python copy of this procedure in scripts/make-stats-vectors.py reproduces the intervals
 * to the last digit; bootstrap.test.ts checks against it.
 */
import { createRng } from "../core/random.js";
import { requireFiniteSample, requireInteger, requireOpenUnitInterval } from "./validate.js";

export interface BootstrapOptions {
  /** Number of bootstrap resamples; 10 000 by default. */
  resamples?: number;
  /** Coverage of the interval, strictly between 0 and 1; 0.95 by default. */
  confidence?: number;
  /** Seed for the random draws: a non-negative integer, of which createRng uses the low 32 bits (required: AEB never draws unseeded). */
  seed: number;
}

/**
 * Exactly these two fields: reports embed the object as-is (summary.json's `fs`), so extra
 * fields would change their output.
 */
export interface BootstrapMeanResult {
  /** Mean of the original values. */
  mean: number;
  /**
   * Percentile interval [low, high] for the mean. Named for the default 95% level; when
   * `options.confidence` is set it holds that level's interval.
   */
  ci95: [number, number];
}

const DEFAULT_RESAMPLES = 10_000;
const DEFAULT_CONFIDENCE = 0.95;

/** Seeded percentile bootstrap interval for the mean of `values`. */
export function bootstrapMeanCI(values: readonly number[], options: BootstrapOptions): BootstrapMeanResult {
  requireFiniteSample(values, "bootstrapMeanCI: values");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  requireInteger(resamples, "bootstrapMeanCI: resamples", 1);
  requireOpenUnitInterval(confidence, "bootstrapMeanCI: confidence");
  requireInteger(options.seed, "bootstrapMeanCI: seed", 0);

  const n = values.length;
  const rng = createRng(options.seed);
  const means = new Float64Array(resamples);
  for (let round = 0; round < resamples; round++) {
    let total = 0;
    for (let draw = 0; draw < n; draw++) total += values[rng.int(0, n - 1)] as number;
    means[round] = total / n;
  }
  means.sort();

  const tail = (1 - confidence) / 2;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  return { mean, ci95: [percentile(means, tail), percentile(means, 1 - tail)] };
}

/** Quantile q of sorted values by linear interpolation between order statistics (NumPy's default). */
function percentile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const fraction = position - below;
  const low = sorted[below] as number;
  const high = sorted[above] as number;
  return low + (high - low) * fraction;
}

/** A percentile-bootstrap interval of any statistic, with how many resamples left it undefined. */
export interface BootstrapStatisticResult {
  /** Percentile interval over the resamples where the statistic was defined; null when none was. */
  ci95: [number, number] | null;
  /** Resamples drawn. */
  resamples: number;
  /** Resamples where the statistic was NaN (e.g. a correlation of tied values), left out of the interval. */
  undefinedResamples: number;
}

/**
 * Seeded percentile bootstrap of a statistic of `size` units: each round draws `size` unit
 * indices with replacement (`rng.int(0, size − 1)`, one after another, as
 * {@link bootstrapMeanCI} draws) and hands them, in draw order, to `statistic`. Rounds where the
 * statistic is NaN are counted and left out; the interval is taken over the others, with the
 * same interpolation as {@link bootstrapMeanCI}. For statistics of matched units (a correlation
 * over resampled scenarios, a difference of paired means); scripts/make-agreement-vectors.py
 * repeats the procedure in Python.
 */
export function bootstrapStatisticCI(
  size: number,
  statistic: (indices: readonly number[]) => number,
  options: BootstrapOptions,
): BootstrapStatisticResult {
  requireInteger(size, "bootstrapStatisticCI: size", 1);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  requireInteger(resamples, "bootstrapStatisticCI: resamples", 1);
  requireOpenUnitInterval(confidence, "bootstrapStatisticCI: confidence");
  requireInteger(options.seed, "bootstrapStatisticCI: seed", 0);
  const rng = createRng(options.seed);
  const values: number[] = [];
  const indices = new Array<number>(size);
  for (let round = 0; round < resamples; round++) {
    for (let draw = 0; draw < size; draw++) indices[draw] = rng.int(0, size - 1);
    const value = statistic(indices);
    if (!Number.isNaN(value)) values.push(value);
  }
  if (values.length === 0) return { ci95: null, resamples, undefinedResamples: resamples };
  const sorted = Float64Array.from(values).sort();
  const tail = (1 - confidence) / 2;
  return { ci95: [percentile(sorted, tail), percentile(sorted, 1 - tail)], resamples, undefinedResamples: resamples - values.length };
}
