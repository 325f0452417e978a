/**
 * Wilson score confidence interval for a binomial proportion.
 *
 * Preferred over the normal ("Wald") interval because it stays inside [0, 1] and keeps close
 * to nominal coverage for small n and for proportions near 0 or 1, both common in AEB
 * (pass rates over a few dozen dialogues). Same formula as statsmodels
 * `proportion_confint(k, n, alpha=1 - confidence, method="wilson")`:
 *
 *   center = (p̂ + z²/(2n)) / (1 + z²/n)
 *   half   = z·√(p̂(1 − p̂)/n + z²/(4n²)) / (1 + z²/n)
 *
 * with p̂ = k/n and z = Φ⁻¹(1 − (1 − confidence)/2) (1.959963984540054 for 95%).
 * Mathematically the interval starts at exactly 0 when k = 0 and ends at exactly 1 when k = n;
 * those ends are set exactly (floating point leaves about 1e-17 there) and both ends are
 * clamped to [0, 1]. Everything else agrees with the formula to rounding.
 */
import { normalQuantile } from "./normal.js";
import { StatsInputError } from "./errors.js";
import { requireInteger, requireOpenUnitInterval } from "./validate.js";

/**
 * Wilson score interval [low, high] for `k` successes out of `n` trials, 95% unless
 * `confidence` is given. Returned as a pair so reports can store it directly (summary.json's
 * `collapseCi95`).
 */
export function wilsonInterval(k: number, n: number, confidence = 0.95): [number, number] {
  requireInteger(n, "wilsonInterval: n (trials)", 1);
  requireInteger(k, "wilsonInterval: k (successes)", 0);
  if (k > n) throw new StatsInputError(`wilsonInterval: k (successes) must not exceed n (trials), but k=${k} and n=${n}`);
  requireOpenUnitInterval(confidence, "wilsonInterval: confidence");
  const z = -normalQuantile((1 - confidence) / 2);
  const proportion = k / n;
  const zSquared = z * z;
  const denominator = 1 + zSquared / n;
  const center = (proportion + zSquared / (2 * n)) / denominator;
  const half = (z * Math.sqrt((proportion * (1 - proportion)) / n + zSquared / (4 * n * n))) / denominator;
  const low = k === 0 ? 0 : Math.max(0, center - half);
  const high = k === n ? 1 : Math.min(1, center + half);
  return [low, high];
}
