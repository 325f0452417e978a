import { describe, expect, it } from "vitest";
import { averageRanks, tieCorrectionSum } from "./ranks.js";
import { scipyVectors } from "./fixtures/scipy-vectors.js";

describe("averageRanks", () => {
  it("gives tied values the mean of the ranks they share", () => {
    // 10 and 10 occupy ranks 1 and 2, so both get 1.5.
    expect(averageRanks([10, 20, 10, 30])).toEqual({ ranks: [1.5, 3, 1.5, 4], tieGroups: [2, 1, 1] });
  });

  it("ranks negative numbers below zero", () => {
    expect(averageRanks([0, -2, 5]).ranks).toEqual([2, 1, 3]);
  });

  it.each(scipyVectors().ranks)("matches scipy.stats.rankdata: $name", ({ values, ranks, tieGroups }) => {
    expect(averageRanks(values)).toEqual({ ranks, tieGroups });
  });
});

describe("tieCorrectionSum", () => {
  it("is zero without ties and sums t³ − t over groups", () => {
    expect(tieCorrectionSum([1, 1, 1])).toBe(0);
    expect(tieCorrectionSum([2, 1, 3])).toBe(6 + 24);
  });
});
