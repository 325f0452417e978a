/**
 * Mann-Whitney U test for two independent samples (two-sided), with effect sizes.
 *
 * Reproduces `scipy.stats.mannwhitneyu(x, y)` with its defaults (SciPy 1.17:
 * use_continuity=True, alternative="two-sided", method="auto"):
 *
 * - U₁ = R₁ − n₁(n₁+1)/2 from average ranks of the pooled data, i.e. the number of pairs
 *   (xᵢ, yⱼ) with xᵢ > yⱼ plus half the tied pairs.
 * - method="auto" takes the **exact** distribution when there are no ties and at least one
 *   sample has at most 8 values (`not (n₁ > 8 and n₂ > 8)`); otherwise the **asymptotic**
 *   normal approximation with tie correction and continuity correction. (Note: SciPy's rule
 *   is "either sample ≤ 8", not "both samples < 8".)
 * - Exact: p = 2·P(U ≥ max(U₁, U₂)), capped at 1.
 * - Asymptotic: z = (max(U₁, U₂) − n₁n₂/2 − ½) / σ, p = 2·(1 − Φ(z)), capped at 1, with
 *   σ² = n₁n₂/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))). When every value is tied σ = 0, z = −∞
 *   and p = 1, exactly as in SciPy.
 */
import { averageRanks, tieCorrectionSum } from "./ranks.js";
import { mannWhitneyExactCdf } from "./mann-whitney-distribution.js";
import { normalCdf } from "./normal.js";
import { requireFiniteSample } from "./validate.js";

export interface MannWhitneyResult {
  /** U of the first sample, as SciPy's `statistic`: pairs with x > y, plus ½ per tied pair. */
  u1: number;
  /** U of the second sample, n₁n₂ − U₁. */
  u2: number;
  /** Two-sided p-value, identical to SciPy's `pvalue`. */
  p: number;
  n1: number;
  n2: number;
  /** Which null distribution produced `p` (SciPy's method="auto" choice). */
  method: "exact" | "asymptotic";
  /**
   * Rank-biserial correlation r = 1 − 2U₂/(n₁n₂) = 2U₁/(n₁n₂) − 1 = P(x > y) − P(x < y) over
   * all pairs (ties count half to each side). Range −1..1. **Positive r means the FIRST sample
   * tends to be HIGHER** (AEB's one sign convention for r, docs/statistics.md); r = 1 when every
   * x is above every y, r = −1 when every x is below every y.
   */
  rankBiserial: number;
  /**
   * Normal-approximation z of U₁ with tie correction and WITHOUT continuity correction:
   * (U₁ − n₁n₂/2)/σ. Positive z means the FIRST sample tends to be HIGHER (the same sign as
   * `rankBiserial`). Reported for every branch so effect sizes are comparable; `p` uses the
   * continuity-corrected z in the asymptotic branch and no z at all in the exact one.
   * NaN when all values are tied (σ = 0).
   */
  z: number;
  /** Effect size r = |z|/√(n₁ + n₂) (Rosenthal); NaN when z is NaN. */
  effectR: number;
}

/** Two-sided Mann-Whitney U test of `x` against `y`, matching `scipy.stats.mannwhitneyu(x, y)`. */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  requireFiniteSample(x, "mannWhitneyU: x");
  requireFiniteSample(y, "mannWhitneyU: y");
  const n1 = x.length;
  const n2 = y.length;
  const n = n1 + n2;
  const { ranks, tieGroups } = averageRanks([...x, ...y]);
  const rankSumX = ranks.slice(0, n1).reduce((sum, rank) => sum + rank, 0);
  const u1 = rankSumX - (n1 * (n1 + 1)) / 2;
  const u2 = n1 * n2 - u1;
  const mean = (n1 * n2) / 2;
  const hasTies = tieGroups.some((size) => size > 1);

  // Same expression and order as SciPy's _get_mwu_z, so degenerate cases round identically.
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieCorrectionSum(tieGroups) / (n * (n - 1))));
  const larger = Math.max(u1, u2);

  const method = (n1 > 8 && n2 > 8) || hasTies ? "asymptotic" : "exact";
  let p: number;
  if (method === "exact") {
    // P(U ≥ larger) = P(U ≤ n₁n₂ − larger) by symmetry; the lower tail keeps the table short.
    p = 2 * mannWhitneyExactCdf(n1 * n2 - larger, n1, n2);
  } else {
    const zCorrected = (larger - mean - 0.5) / sigma;
    p = 2 * normalCdf(-zCorrected);
  }
  p = Math.min(1, Math.max(0, p));

  const z = (u1 - mean) / sigma;
  return {
    u1,
    u2,
    p,
    n1,
    n2,
    method,
    rankBiserial: (2 * u1) / (n1 * n2) - 1,
    z,
    effectR: Math.abs(z) / Math.sqrt(n),
  };
}
