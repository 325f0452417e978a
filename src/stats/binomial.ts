/**
 * Binomial distribution cdf, for the exact McNemar test.
 *
 * P(X ≤ k) = I_{1−p}(n − k, k + 1), the regularized incomplete beta function; this is how
 * `scipy.stats.binom.cdf` (Cephes `bdtr`) computes it too. Summing probability masses would
 * also work but needs care with underflow for large n; the beta form is uniform in n.
 */
import { incompleteBeta } from "./special-functions.js";

/** P(X ≤ k) for X ~ Binomial(n, p). `k` is floored like SciPy; NaN for invalid n or p. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0 || !(p >= 0 && p <= 1) || Number.isNaN(k)) return Number.NaN;
  const successes = Math.floor(k);
  if (successes < 0) return 0;
  if (successes >= n) return 1;
  return incompleteBeta(1 - p, n - successes, successes + 1, p).lower;
}
