/**
 * Kendall's tau-b rank correlation with its two-sided p-value.
 *
 * Matches `scipy.stats.kendalltau(x, y)` (variant `b`, method `auto`):
 * - tau-b = (C − D) / √((P − Tx)(P − Ty)) over the P = n(n − 1)/2 pairs, with C concordant and D
 *   discordant pairs, and Tx, Ty the pairs tied in x, in y; pairs tied in both count in neither;
 * - the p-value is exact (Kendall's distribution of the number of discordant pairs) when there
 *   are no ties and n ≤ 33 (or at most one pair is discordant, or concordant), and otherwise
 *   from the normal approximation of C − D with the tie-corrected variance of Kendall (1970);
 * - tau is NaN (and p) when every pair is tied in x or in y (a constant input), or n < 2.
 *
 * Pairs are counted directly, in O(n²): AEB correlates a handful of agents, or a few thousand
 * dialogues at most.
 */
import { normalSf } from "./normal.js";
import { requireFiniteSample, requireSameLength } from "./validate.js";

export interface KendallResult {
  /** Kendall's tau-b in −1..1; NaN when undefined. */
  tau: number;
  /** Two-sided p-value for tau ≠ 0; NaN when tau is. */
  p: number;
  /** `exact` or `asymptotic`: the branch that gave p, as SciPy's `method="auto"` chooses it. */
  method: "exact" | "asymptotic";
  n: number;
}

/** Σ t(t − 1)/2, Σ t(t − 1)(t − 2) and Σ t(t − 1)(2t + 5) over the sizes t of groups of equal values. */
function tieSums(values: readonly number[]): { pairs: number; cubic: number; variance: number } {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let pairs = 0;
  let cubic = 0;
  let variance = 0;
  for (const t of counts.values()) {
    pairs += (t * (t - 1)) / 2;
    cubic += t * (t - 1) * (t - 2);
    variance += t * (t - 1) * (2 * t + 5);
  }
  return { pairs, cubic, variance };
}

/** Kendall's tau-b of paired `x` and `y`, matching `scipy.stats.kendalltau(x, y)`. */
export function kendallTauB(x: readonly number[], y: readonly number[]): KendallResult {
  requireFiniteSample(x, "kendallTauB: x");
  requireFiniteSample(y, "kendallTauB: y");
  requireSameLength(x, y, "kendallTauB: x", "y");
  const n = x.length;
  const total = (n * (n - 1)) / 2;
  const tiesX = tieSums(x);
  const tiesY = tieSums(y);
  if (n < 2 || tiesX.pairs === total || tiesY.pairs === total) return { tau: Number.NaN, p: Number.NaN, method: "asymptotic", n };
  let concordant = 0;
  let discordant = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const sign = Math.sign((x[i] as number) - (x[j] as number)) * Math.sign((y[i] as number) - (y[j] as number));
      if (sign > 0) concordant += 1;
      else if (sign < 0) discordant += 1;
    }
  }
  const difference = concordant - discordant;
  const tau = Math.min(1, Math.max(-1, difference / Math.sqrt(total - tiesX.pairs) / Math.sqrt(total - tiesY.pairs)));
  const untied = tiesX.pairs === 0 && tiesY.pairs === 0;
  if (untied && (n <= 33 || Math.min(discordant, total - discordant) <= 1)) {
    return { tau, p: kendallExactP(n, total - discordant), method: "exact", n };
  }
  const m = n * (n - 1);
  const variance =
    (m * (2 * n + 5) - tiesX.variance - tiesY.variance) / 18 +
    (2 * tiesX.pairs * tiesY.pairs) / m +
    (tiesX.cubic * tiesY.cubic) / (9 * m * (n - 2));
  const z = difference / Math.sqrt(variance);
  return { tau, p: Math.min(1, 2 * normalSf(Math.abs(z))), method: "asymptotic", n };
}

/** n! as a float (exact up to 22!, within rounding beyond), for the exact distribution's normalisation. */
function factorial(n: number): number {
  let product = 1;
  for (let k = 2; k <= n; k++) product *= k;
  return product;
}

/**
 * Two-sided exact p-value of `concordant` concordant pairs among n untied observations: twice the
 * probability of a count at least as far from the middle, by Kendall's recurrence on the number
 * of permutations of n with c inversions (SciPy's `_kendall_p_exact`).
 */
export function kendallExactP(n: number, concordant: number): number {
  const total = (n * (n - 1)) / 2;
  const c = Math.min(concordant, total - concordant);
  if (n <= 2) return 1;
  if (c === 0) return n < 171 ? 2 / factorial(n) : 0;
  if (c === 1) return n < 172 ? 2 / factorial(n - 1) : 0;
  if (4 * c === n * (n - 1)) return 1;
  // counts[k]: permutations of j elements with k inversions, for k <= c, built up j = 3..n.
  let counts = new Float64Array(c + 1);
  counts[0] = 1;
  counts[1] = 1;
  for (let j = 3; j <= n; j++) {
    const cumulative = new Float64Array(c + 1);
    let running = 0;
    for (let k = 0; k <= c; k++) {
      running += counts[k] as number;
      cumulative[k] = running;
    }
    if (j <= c) {
      const shifted = cumulative.slice();
      for (let k = j; k <= c; k++) shifted[k] = (cumulative[k] as number) - (cumulative[k - j] as number);
      counts = shifted;
    } else counts = cumulative;
  }
  const sum = counts.reduce((accumulated, value) => accumulated + value, 0);
  return Math.min(1, Math.max(0, (2 * sum) / factorial(n)));
}
