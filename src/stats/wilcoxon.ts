/**
 * Wilcoxon signed-rank test for paired values (two-sided), with effect sizes.
 *
 * Reproduces `scipy.stats.wilcoxon(x, y)` with the defaults of SciPy 1.17
 * (zero_method="wilcox", correction=False, alternative="two-sided", method="auto"); the rules
 * below were read from scipy/stats/_wilcoxon.py of that version.
 *
 * - Differences d = x − y (or `x` itself when `y` is omitted). Zero differences are dropped
 *   ("wilcox"); the rest are ranked by |d| with average ranks. R⁺/R⁻ are the rank sums of the
 *   positive/negative differences and the statistic is min(R⁺, R⁻).
 * - method="auto" decides on the length of d INCLUDING zeros (call it N):
 *   1. N > 50: **asymptotic**.
 *   2. otherwise, no ties among the non-zero |d| and no zeros: **exact** null distribution.
 *   3. otherwise, N ≤ 13: **permutation**, SciPy's exhaustive sign-flip permutation test
 *      (2^N flips, which is exact for the tied ranks); see signed-rank-distribution.ts.
 *   4. otherwise: **asymptotic**.
 * - Asymptotic: z = (R⁺ − n(n+1)/4)/σ with σ² = (n(n+1)(2n+1) − Σ(t³ − t)/2)/24 over tie
 *   groups of the non-zero |d| (n = number of non-zero differences), no continuity
 *   correction, p = 2·(1 − Φ(|z|)).
 * - Degenerate input mirrors SciPy: a single non-zero difference gives p = 1; all differences
 *   zero gives statistic 0 and p = 1 when N ≤ 13 (permutation branch) but p = NaN when N > 13
 *   (σ = 0 in the asymptotic branch).
 */
import { averageRanks, tieCorrectionSum } from "./ranks.js";
import { normalSf } from "./normal.js";
import { signedRankTwoSidedP } from "./signed-rank-distribution.js";
import { requireFiniteSample, requireSameLength } from "./validate.js";

export interface WilcoxonResult {
  /** min(R⁺, R⁻), SciPy's two-sided `statistic`. */
  statistic: number;
  /** Two-sided p-value, identical to SciPy's `pvalue`. */
  p: number;
  /** Number of non-zero differences (zeros are dropped before ranking). */
  n: number;
  /** Number of zero differences that were dropped. */
  zeros: number;
  /** Sum of the ranks of the positive differences (x > y). */
  rankSumPositive: number;
  /** Sum of the ranks of the negative differences (x < y). */
  rankSumNegative: number;
  /** Which null distribution produced `p` (SciPy's method="auto" choice). */
  method: "exact" | "permutation" | "asymptotic";
  /**
   * Normal-approximation z = (R⁺ − n(n+1)/4)/σ with tie correction, no continuity correction.
   * Signed: **positive means x tends to exceed y**. It is the z the asymptotic branch tests
   * with; in the exact and permutation branches it is still computed (SciPy computes it
   * internally too) so effect sizes are available for every sample size. SciPy's own
   * `zstatistic` (only with method="asymptotic") is −|z|. NaN when n = 0.
   */
  z: number;
  /** Effect size r = |z|/√n with n the number of non-zero differences; NaN when n = 0. */
  effectR: number;
  /**
   * Matched-pairs rank-biserial correlation (R⁺ − R⁻)/(R⁺ + R⁻), in −1..1 (Kerby 2014).
   * **Positive means x tends to exceed y**; 1 when every non-zero difference is positive.
   * NaN when n = 0.
   */
  matchedPairsRankBiserial: number;
}

/**
 * Two-sided Wilcoxon signed-rank test. Pass paired `x` and `y`, or the differences as `x`
 * alone. Matches `scipy.stats.wilcoxon(x, y)` / `wilcoxon(d)` with default arguments.
 */
export function wilcoxonSignedRank(x: readonly number[], y?: readonly number[]): WilcoxonResult {
  requireFiniteSample(x, "wilcoxonSignedRank: x");
  if (y !== undefined) {
    requireFiniteSample(y, "wilcoxonSignedRank: y");
    requireSameLength(x, y, "wilcoxonSignedRank: x", "y");
  }
  // Same floating-point subtraction as NumPy, so near-equal differences tie (or not) alike.
  const differences = y === undefined ? [...x] : x.map((value, index) => value - (y[index] as number));
  const nonZero = differences.filter((d) => d !== 0);
  const zeros = differences.length - nonZero.length;
  const n = nonZero.length;

  const { ranks, tieGroups } = averageRanks(nonZero.map(Math.abs));
  let rankSumPositive = 0;
  let rankSumNegative = 0;
  nonZero.forEach((d, index) => {
    if (d > 0) rankSumPositive += ranks[index] as number;
    else rankSumNegative += ranks[index] as number;
  });
  const hasTies = tieGroups.some((size) => size > 1);

  const mean = n * (n + 1) * 0.25;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieCorrectionSum(tieGroups) / 2) / 24);
  const z = (rankSumPositive - mean) / sigma;

  let method: WilcoxonResult["method"];
  if (differences.length > 50) method = "asymptotic";
  else if (!hasTies && zeros === 0) method = "exact";
  else if (differences.length <= 13) method = "permutation";
  else method = "asymptotic";

  const p = method === "asymptotic" ? 2 * normalSf(Math.abs(z)) : signedRankTwoSidedP(ranks, rankSumPositive);

  return {
    statistic: Math.min(rankSumPositive, rankSumNegative),
    p,
    n,
    zeros,
    rankSumPositive,
    rankSumNegative,
    method,
    z,
    effectR: Math.abs(z) / Math.sqrt(n),
    matchedPairsRankBiserial: (rankSumPositive - rankSumNegative) / (rankSumPositive + rankSumNegative),
  };
}
