import { describe, expect, it } from "vitest";
import { wilcoxonSignedRank } from "./wilcoxon.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("wilcoxonSignedRank", () => {
  it("uses the exact distribution for small samples without ties or zeros", () => {
    // Five positive differences: R⁺ = 15, R⁻ = 0, p = 2/2⁵.
    const result = wilcoxonSignedRank([1, 2, 3, 4, 5]);
    expect(result).toMatchObject({ statistic: 0, p: 0.0625, n: 5, zeros: 0, method: "exact" });
    expect(result.matchedPairsRankBiserial).toBe(1);
    expect(result.z).toBeGreaterThan(0);
  });

  it("tests x − y when given paired samples, with signs from x's point of view", () => {
    const lower = wilcoxonSignedRank([1, 2, 3, 4, 5, 6], [2, 4, 6, 8, 10, 12]);
    expect(lower.rankSumPositive).toBe(0);
    expect(lower.matchedPairsRankBiserial).toBe(-1);
    expect(lower.z).toBeLessThan(0);
  });

  it("drops zero differences and switches to the permutation branch for small samples", () => {
    const result = wilcoxonSignedRank([0, 1, -2, 2, 3, 0.5]);
    expect(result.zeros).toBe(1);
    expect(result.n).toBe(5);
    expect(result.method).toBe("permutation");
    expect(result.statistic).toBe(3.5);
    expect(result.p).toBeCloseTo(0.375, 15);
  });

  it("goes asymptotic above 50 pairs and for ties beyond 13 pairs", () => {
    const distinct = Array.from({ length: 51 }, (_, i) => (i % 2 === 0 ? 1 : -1) * (i + 1));
    expect(wilcoxonSignedRank(distinct).method).toBe("asymptotic");
    expect(wilcoxonSignedRank(distinct.slice(0, 50)).method).toBe("exact");
    const tied = [1, -1, 2, 2, 3, -3, 4, 5, 6, 6, 7, -8, 9, 10];
    expect(wilcoxonSignedRank(tied).method).toBe("asymptotic");
    expect(wilcoxonSignedRank(tied.slice(0, 13)).method).toBe("permutation");
  });

  it("mirrors SciPy when every difference is zero", () => {
    const small = wilcoxonSignedRank([0, 0, 0, 0]);
    expect(small).toMatchObject({ statistic: 0, p: 1, n: 0, method: "permutation" });
    expect(small.effectR).toBeNaN();
    const large = wilcoxonSignedRank(new Array<number>(20).fill(0.4), new Array<number>(20).fill(0.4));
    expect(large.method).toBe("asymptotic");
    expect(large.p).toBeNaN();
  });

  it("computes the effect size r = |z|/√n over the non-zero differences", () => {
    const result = wilcoxonSignedRank([0, 0, 1.5, -0.5, 2, 2.5, 3, 3.5, 4, -1, 5, 6, 7, 8, 9]);
    expect(result.n).toBe(13);
    expect(result.effectR).toBeCloseTo(Math.abs(result.z) / Math.sqrt(13), 15);
  });

  describe.each(scipyVectors().wilcoxon)("matches scipy.stats.wilcoxon: $name", (c) => {
    const result = wilcoxonSignedRank(c.x, c.y);

    it("has the same statistic, p-value and branch", () => {
      expect(difference(result.statistic, c.statistic)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.p, c.p)).toBeLessThanOrEqual(1e-9);
      expect(result.method).toBe(c.method);
      expect(result.n).toBe(c.n);
    });

    it("has the same rank sums, z (SciPy's zstatistic = −|z|) and rank-biserial r", () => {
      expect(difference(result.rankSumPositive, c.rPlus)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.rankSumNegative, c.rMinus)).toBeLessThanOrEqual(1e-9);
      expect(difference(-Math.abs(result.z), c.zAsymptotic)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.matchedPairsRankBiserial, c.matchedPairsRankBiserial)).toBeLessThanOrEqual(1e-9);
    });
  });

  describe("rejects bad input", () => {
    it("throws StatsInputError for empty input", () => {
      expect(() => wilcoxonSignedRank([])).toThrow("wilcoxonSignedRank: x is empty");
    });

    it("throws StatsInputError when paired samples differ in length", () => {
      expect(() => wilcoxonSignedRank([1, 2, 3], [1, 2])).toThrow(StatsInputError);
      expect(() => wilcoxonSignedRank([1, 2, 3], [1, 2])).toThrow("same length (paired values), but have 3 and 2");
    });

    it("throws StatsInputError naming a NaN value", () => {
      expect(() => wilcoxonSignedRank([1, 2], [Number.NaN, 1])).toThrow(
        "wilcoxonSignedRank: y must contain only finite numbers, but index 0 is NaN",
      );
    });
  });
});
