/**
 * Pearson correlation with its two-sided p-value.
 *
 * Matches `scipy.stats.pearsonr(x, y)`: r is the dot product of the centred values each divided
 * by its norm, clipped to [−1, 1]; the p-value is 2·P(B > |r|) for B the Beta(n/2 − 1, n/2 − 1)
 * distribution on [−1, 1] (the exact null distribution of r for independent normal samples,
 * equivalent to the t test with n − 2 degrees of freedom).
 *
 * Where the correlation is undefined the result mirrors SciPy with NaN: a constant `x` or `y`
 * gives r = p = NaN. With two observations r is exactly ±1 and p is 1 (as SciPy promises).
 * Unlike SciPy, a single observation is NaN rather than an error, as in `spearman`.
 */
import { incompleteBeta } from "./special-functions.js";
import { requireFiniteSample, requireSameLength } from "./validate.js";

export interface PearsonResult {
  /** Pearson's r in −1..1; NaN when undefined (constant input or n = 1). */
  r: number;
  /** Two-sided p-value for r ≠ 0; NaN when r is. */
  p: number;
  n: number;
}

/** Pearson correlation of paired `x` and `y`, matching `scipy.stats.pearsonr(x, y)`. */
export function pearson(x: readonly number[], y: readonly number[]): PearsonResult {
  requireFiniteSample(x, "pearson: x");
  requireFiniteSample(y, "pearson: y");
  requireSameLength(x, y, "pearson: x", "y");
  const n = x.length;
  const isConstant = (values: readonly number[]): boolean => values.every((value) => value === values[0]);
  if (n < 2 || isConstant(x) || isConstant(y)) return { r: Number.NaN, p: Number.NaN, n };
  const centred = (values: readonly number[]) => {
    const mean = values.reduce((sum, value) => sum + value, 0) / n;
    const deviations = values.map((value) => value - mean);
    // As SciPy: the norm is taken of the deviations scaled by their largest magnitude (no overflow).
    const largest = Math.max(...deviations.map(Math.abs));
    const norm = largest * Math.sqrt(deviations.reduce((sum, value) => sum + (value / largest) ** 2, 0));
    return deviations.map((value) => value / norm);
  };
  const unitX = centred(x);
  const unitY = centred(y);
  let r = 0;
  for (let i = 0; i < n; i++) r += (unitX[i] as number) * (unitY[i] as number);
  r = Math.min(1, Math.max(-1, r));
  if (n === 2) return { r: Math.round(r), p: 1, n };
  const shape = n / 2 - 1;
  // P(B > |r|) for B ~ Beta(shape, shape) on [−1, 1] is I_{(1 − |r|)/2}(shape, shape).
  const tail = (1 - Math.abs(r)) / 2;
  const p = Math.min(1, 2 * incompleteBeta(tail, shape, shape, (1 + Math.abs(r)) / 2).lower);
  return { r, p, n };
}
