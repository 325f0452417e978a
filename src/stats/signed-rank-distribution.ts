/**
 * Exact null distribution of the Wilcoxon signed-rank statistic R⁺ (sum of the ranks of the
 * positive differences), for the small-sample branches of `wilcoxon`.
 *
 * Under the null hypothesis each difference is equally likely to be positive or negative, so
 * R⁺ is the sum of a uniformly random subset of the ranks. Counting subsets by their sum
 * (a knapsack-style recurrence) gives the distribution exactly.
 *
 * The same count serves SciPy's two small-sample routes: `method="exact"` (ranks 1..n, no ties)
 * and the sign-flip permutation test it uses when there are ties or zeros (average ranks,
 * possibly halves). Ranks are doubled so every weight is an integer; zeros carry no rank and
 * only double every count, which cancels in the probabilities.
 */

/**
 * Two-sided p-value 2·min(P(R⁺ ≤ observed), P(R⁺ ≥ observed)), capped at 1, where R⁺ is the
 * rank sum of a random subset of `ranks` (each rank in or out with probability ½).
 *
 * Matches `scipy.stats.wilcoxon(..., method="exact")` without ties and SciPy's exhaustive
 * `permutation_test` (2ⁿ sign flips) with ties. Counts stay exact integers while there are at
 * most 52 ranks; SciPy only takes these routes for n ≤ 50.
 */
export function signedRankTwoSidedP(ranks: readonly number[], observedRankSum: number): number {
  const weights = ranks.map((rank) => Math.round(2 * rank));
  const maxSum = weights.reduce((sum, weight) => sum + weight, 0);
  // counts[s] = number of subsets of the weights seen so far with doubled rank sum s.
  const counts = new Array<number>(maxSum + 1).fill(0);
  counts[0] = 1;
  let reachable = 0;
  for (const weight of weights) {
    reachable += weight;
    for (let sum = reachable; sum >= weight; sum--) {
      counts[sum] = (counts[sum] as number) + (counts[sum - weight] as number);
    }
  }
  const observed = Math.round(2 * observedRankSum);
  let atMost = 0;
  let atLeast = 0;
  counts.forEach((count, sum) => {
    if (sum <= observed) atMost += count;
    if (sum >= observed) atLeast += count;
  });
  const total = 2 ** weights.length;
  return Math.min(1, (2 * Math.min(atMost, atLeast)) / total);
}
