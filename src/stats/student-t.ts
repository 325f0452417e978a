/**
 * Student t distribution, for the p-values of OLS coefficients and of Spearman's rho.
 *
 * Uses the identity P(T > |t|) = ½ · I_x(ν/2, ½) with x = ν/(ν + t²). Both x and its
 * complement t²/(ν + t²) are formed without subtraction, so small tail probabilities keep
 * full relative accuracy. Matches `scipy.stats.t.sf` / `t.cdf` to 1e-12 relative up to
 * 1000 degrees of freedom; at 10⁵ df agreement drops to about 1e-11, because the continued
 * fraction evaluates terms like 1 − (a + b)x/(a + 1) with x within 1e-4 of 1. Regression and
 * correlation p-values in AEB never need more than that. See student-t.test.ts.
 */
import { incompleteBeta } from "./special-functions.js";
import { normalSf } from "./normal.js";

/** P(T > t) for T ~ Student t with `df` degrees of freedom (df > 0; NaN otherwise, as SciPy). */
export function studentTSf(t: number, df: number): number {
  if (Number.isNaN(t) || Number.isNaN(df) || !(df > 0)) return Number.NaN;
  if (df === Infinity) return normalSf(t);
  if (t === Infinity) return 0;
  if (t === -Infinity) return 1;
  const tSquared = t * t;
  // x = ν/(ν + t²) and 1 − x = t²/(ν + t²), written to stay finite when t² overflows.
  let x: number;
  let complement: number;
  if (tSquared > df) {
    const ratio = df / tSquared;
    x = ratio / (1 + ratio);
    complement = 1 / (1 + ratio);
  } else {
    const ratio = tSquared / df;
    x = 1 / (1 + ratio);
    complement = ratio / (1 + ratio);
  }
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5, complement).lower;
  return t > 0 ? tail : 1 - tail;
}

/** P(T ≤ t) for T ~ Student t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  return studentTSf(-t, df);
}

/** Two-sided p-value 2·P(T > |t|), as used by `scipy.stats.linregress` and `spearmanr`. */
export function studentTTwoSidedP(t: number, df: number): number {
  return 2 * studentTSf(Math.abs(t), df);
}
