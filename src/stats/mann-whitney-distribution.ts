/**
 * Exact null distribution of the Mann-Whitney U statistic without ties, for the small-sample
 * branch of `mannWhitneyU`.
 *
 * The number of arrangements of n₁ + n₂ distinct values giving U = u is the coefficient of qᵘ
 * in the Gaussian binomial coefficient [n₁+n₂ choose n₁]_q = Π_{i=1..m} (1 − q^{n+i}) / (1 − q^i),
 * with m = min(n₁, n₂), n = max(n₁, n₂). Multiplying by (1 − q^{n+i}) and dividing by (1 − q^i)
 * are one pass each over the coefficients, so the whole table costs O(m·k) for P(U ≤ k).
 * The counts overflow doubles quickly (C(60, 8) already exceeds 2⁵³ for larger samples), so
 * they are kept as BigInt and the final probability is one correctly rounded division.
 * SciPy computes the same distribution with a different recurrence (Löffler 1983).
 */

/** Number of bits of a positive BigInt. */
function bitLength(value: bigint): number {
  return value.toString(2).length;
}

/** numerator / denominator as the nearest double (within one ulp), for BigInts of any size. */
function bigRatio(numerator: bigint, denominator: bigint): number {
  if (numerator === 0n) return 0;
  // Scale so the integer quotient carries 64 significant bits, then undo the scaling.
  const shift = bitLength(denominator) - bitLength(numerator) + 64;
  const quotient = shift >= 0 ? (numerator << BigInt(shift)) / denominator : numerator / (denominator << BigInt(-shift));
  return Number(quotient) * 2 ** -shift;
}

/** Binomial coefficient C(n, k) as a BigInt. */
function binomialCoefficient(n: number, k: number): bigint {
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/**
 * P(U ≤ k) for the Mann-Whitney U statistic of samples of sizes n1 and n2 without ties, under
 * the null hypothesis that all (n1 + n2)! orderings are equally likely. U is symmetric about
 * n1·n2/2, so callers pass the lower tail (k ≤ n1·n2/2) to keep the table short.
 */
export function mannWhitneyExactCdf(k: number, n1: number, n2: number): number {
  const maxU = n1 * n2;
  const limit = Math.floor(k);
  if (limit < 0) return 0;
  if (limit >= maxU) return 1;
  const m = Math.min(n1, n2);
  const n = Math.max(n1, n2);
  // coefficients[u] = number of arrangements with U = u, built up factor by factor.
  const coefficients = new Array<bigint>(limit + 1).fill(0n);
  coefficients[0] = 1n;
  for (let i = 1; i <= m; i++) {
    // Multiply by (1 − q^(n+i)): descending so each step reads the old coefficient.
    for (let u = limit; u >= n + i; u--) {
      coefficients[u] = (coefficients[u] as bigint) - (coefficients[u - n - i] as bigint);
    }
    // Divide by (1 − q^i): g[u] = f[u] + g[u − i], ascending.
    for (let u = i; u <= limit; u++) {
      coefficients[u] = (coefficients[u] as bigint) + (coefficients[u - i] as bigint);
    }
  }
  const favourable = coefficients.reduce((sum, count) => sum + count, 0n);
  return bigRatio(favourable, binomialCoefficient(n1 + n2, m));
}
