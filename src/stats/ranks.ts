/**
 * Average ranks with tie groups: the common first step of the rank tests (Mann-Whitney,
 * Wilcoxon, Spearman).
 *
 * Matches `scipy.stats.rankdata(values, method="average")`: the smallest value gets rank 1,
 * and tied values all get the mean of the ranks they occupy. Values are tied only when exactly
 * equal (`===`), as in NumPy; round first if near-equal floats should count as ties.
 */

export interface Ranking {
  /** Rank of each input value, in input order (1-based; ties share their average rank). */
  ranks: number[];
  /**
   * Size of each group of equal values, in ascending order of value (1 for an untied value).
   * The tie corrections of the normal approximations use Σ (t³ − t) over these sizes.
   */
  tieGroups: number[];
}

/** Average ranks of `values` and the sizes of their tie groups. */
export function averageRanks(values: readonly number[]): Ranking {
  const order = values.map((_, index) => index).sort((a, b) => (values[a] as number) - (values[b] as number));
  const ranks = new Array<number>(values.length).fill(0);
  const tieGroups: number[] = [];
  let start = 0;
  while (start < order.length) {
    const value = values[order[start] as number];
    let end = start + 1;
    while (end < order.length && values[order[end] as number] === value) end++;
    // Positions start..end-1 hold ranks start+1..end; their average is (start + 1 + end) / 2.
    const averageRank = (start + 1 + end) / 2;
    for (let position = start; position < end; position++) ranks[order[position] as number] = averageRank;
    tieGroups.push(end - start);
    start = end;
  }
  return { ranks, tieGroups };
}

/** Σ (t³ − t) over tie-group sizes: zero without ties; the variance correction of rank tests. */
export function tieCorrectionSum(tieGroups: readonly number[]): number {
  return tieGroups.reduce((sum, size) => sum + (size * size * size - size), 0);
}
