/**
 * Spearman rank correlation with its two-sided p-value.
 *
 * Matches `scipy.stats.spearmanr(x, y)`: rho is the Pearson correlation of the average ranks
 * (so ties are handled by mid-ranks, not by the n(n²−1) shortcut formula, which is wrong with
 * ties), and the p-value uses t = rho·√((n − 2)/((1 + rho)(1 − rho))) against Student t with
 * n − 2 degrees of freedom. That t approximation is SciPy's default; it is not exact for very
 * small n.
 *
 * Where the correlation is undefined the result mirrors SciPy with NaN (which serialises to
 * null in JSON reports): a constant `x` or `y` gives rho = p = NaN, and a single observation
 * gives rho = p = NaN. With two observations rho is ±1 but p is NaN (no degrees of freedom).
 * A perfect correlation with n > 2 gives p = 0.
 */
import { averageRanks } from "./ranks.js";
import { studentTTwoSidedP } from "./student-t.js";
import { requireFiniteSample, requireSameLength } from "./validate.js";

export interface SpearmanResult {
  /** Spearman's rho in −1..1; NaN when undefined (constant input or n = 1). */
  rho: number;
  /** Two-sided p-value for rho ≠ 0; NaN when undefined (constant input or n ≤ 2). */
  p: number;
  n: number;
}

/** Spearman correlation of paired `x` and `y`, matching `scipy.stats.spearmanr(x, y)`. */
export function spearman(x: readonly number[], y: readonly number[]): SpearmanResult {
  requireFiniteSample(x, "spearman: x");
  requireFiniteSample(y, "spearman: y");
  requireSameLength(x, y, "spearman: x", "y");
  const n = x.length;
  const isConstant = (values: readonly number[]): boolean => values.every((value) => value === values[0]);
  if (n < 2 || isConstant(x) || isConstant(y)) return { rho: Number.NaN, p: Number.NaN, n };

  const rho = pearsonLikeNumpy(averageRanks(x).ranks, averageRanks(y).ranks);
  const df = n - 2;
  // As SciPy: clip the ratio at 0 (rounding) and let ±1 give an infinite t, hence p = 0.
  const t = rho * Math.sqrt(Math.max(0, df / ((rho + 1) * (1 - rho))));
  return { rho, p: studentTTwoSidedP(t, df), n };
}

/**
 * Pearson correlation computed in the same order as `numpy.corrcoef` (covariance divided by
 * each standard deviation in turn, then clipped to [−1, 1]), so that perfect correlations
 * round to the same ±1 or 0.9999999999999999 as SciPy and give the same p-value.
 */
function pearsonLikeNumpy(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const meanA = a.reduce((sum, value) => sum + value, 0) / n;
  const meanB = b.reduce((sum, value) => sum + value, 0) / n;
  let covariance = 0;
  let varianceA = 0;
  let varianceB = 0;
  for (let i = 0; i < n; i++) {
    const da = (a[i] as number) - meanA;
    const db = (b[i] as number) - meanB;
    covariance += da * db;
    varianceA += da * da;
    varianceB += db * db;
  }
  const divisor = n - 1;
  const correlation = covariance / divisor / Math.sqrt(varianceA / divisor) / Math.sqrt(varianceB / divisor);
  return Math.min(1, Math.max(-1, correlation));
}
