/**
 * Exact McNemar test for paired binary outcomes (two-sided).
 *
 * Only the discordant pairs carry information: b = pairs where condition A succeeded and B
 * failed, c = the reverse. Under the null hypothesis each discordant pair is equally likely
 * to go either way, so min(b, c) is Binomial(b + c, ½). Matches statsmodels
 * `mcnemar([[a, b], [c, d]], exact=True)`, which is `scipy.stats.binomtest(min(b, c), b + c, 0.5)`:
 * for p = ½ the binomial is symmetric and that two-sided p-value is min(1, 2·P(X ≤ min(b, c))).
 * With no discordant pairs there is no evidence either way and p = 1 (binomtest itself
 * rejects n = 0; statsmodels returns 1).
 */
import { binomialCdf } from "./binomial.js";
import { StatsInputError } from "./errors.js";
import { requireInteger, requireSameLength } from "./validate.js";

export interface McNemarResult {
  /** min(b, c), the statistic statsmodels reports for the exact test. */
  statistic: number;
  /** Two-sided exact p-value. */
  p: number;
  /** Pairs where A succeeded and B failed. */
  b: number;
  /** Pairs where B succeeded and A failed. */
  c: number;
}

/** Exact two-sided McNemar test from the discordant counts `b` and `c`. */
export function mcnemarExact(b: number, c: number): McNemarResult {
  requireInteger(b, "mcnemarExact: b (A succeeded, B failed)", 0);
  requireInteger(c, "mcnemarExact: c (B succeeded, A failed)", 0);
  const discordant = b + c;
  const statistic = Math.min(b, c);
  const p = discordant === 0 ? 1 : Math.min(1, 2 * binomialCdf(statistic, discordant, 0.5));
  return { statistic, p, b, c };
}

/**
 * Exact McNemar test from paired outcomes: `successA[i]` and `successB[i]` are the results of
 * the same item (e.g. the same scenario) under conditions A and B.
 */
export function mcnemarFromPairs(successA: readonly boolean[], successB: readonly boolean[]): McNemarResult {
  requireSameLength(successA, successB, "mcnemarFromPairs: successA", "successB");
  if (successA.length === 0) throw new StatsInputError("mcnemarFromPairs: no pairs given");
  let b = 0;
  let c = 0;
  successA.forEach((a, index) => {
    const other = successB[index];
    if (a && !other) b++;
    else if (!a && other) c++;
  });
  return mcnemarExact(b, c);
}
