import { describe, expect, it } from "vitest";
import { mannWhitneyU } from "./mann-whitney.js";
import { normalSf } from "./normal.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("mannWhitneyU", () => {
  it("reproduces the SciPy documentation example (exact branch)", () => {
    const males = [19, 22, 16, 29, 24];
    const females = [20, 11, 17, 12];
    const result = mannWhitneyU(males, females);
    expect(result.u1).toBe(17);
    expect(result.u2).toBe(3);
    expect(result.method).toBe("exact");
    expect(result.p).toBeCloseTo(0.1111111111111111, 15);
  });

  it("gives a positive rank-biserial r, with z of the same sign, when the first sample is higher (docs/statistics.md)", () => {
    const low = mannWhitneyU([1, 2, 3], [4, 5, 6]);
    expect(low.u1).toBe(0);
    expect(low.rankBiserial).toBe(-1);
    expect(low.z).toBeLessThan(0);

    const high = mannWhitneyU([4, 5, 6], [1, 2, 3]);
    expect(high.rankBiserial).toBe(1);
    expect(high.z).toBeGreaterThan(0);
    // Mostly higher, one tie and one pair lower: P(x > y) - P(x < y) = (7 + 0.5 - 1.5) / 9.
    expect(mannWhitneyU([2, 5, 6], [1, 2, 3]).rankBiserial).toBeCloseTo((7.5 - 1.5) / 9, 15);
    // The test itself is symmetric.
    expect(high.p).toBe(low.p);
  });

  it("uses the exact distribution while either sample has at most 8 values and nothing is tied", () => {
    const eight = Array.from({ length: 8 }, (_, i) => i);
    const many = Array.from({ length: 30 }, (_, i) => 100 + i);
    expect(mannWhitneyU(eight, many).method).toBe("exact");
    expect(mannWhitneyU([...eight, 8.5], many.slice(0, 9)).method).toBe("asymptotic");
    expect(mannWhitneyU([1, 2, 2], [3, 4]).method).toBe("asymptotic");
  });

  it("returns p = 1 and an undefined z when every value is tied", () => {
    const result = mannWhitneyU([0.5, 0.5, 0.5], [0.5, 0.5]);
    expect(result.p).toBe(1);
    expect(result.u1).toBe(3);
    expect(result.z).toBeNaN();
    expect(result.effectR).toBeNaN();
  });

  it("computes the effect size r = |z|/√N", () => {
    const result = mannWhitneyU([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [5, 7, 9, 11, 13, 15, 17, 19, 21, 23]);
    expect(result.effectR).toBeCloseTo(Math.abs(result.z) / Math.sqrt(20), 15);
  });

  describe.each(scipyVectors().mannWhitney)("matches scipy.stats.mannwhitneyu: $name", (c) => {
    const result = mannWhitneyU(c.x, c.y);

    it("has the same U₁, p-value and branch", () => {
      expect(difference(result.u1, c.u1)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.p, c.p)).toBeLessThanOrEqual(1e-9);
      expect(result.method).toBe(c.method);
      expect(result.n1).toBe(c.x.length);
      expect(result.n2).toBe(c.y.length);
    });

    it("has the rank-biserial r and a z whose normal p is SciPy's uncorrected asymptotic p", () => {
      expect(difference(result.rankBiserial, c.rankBiserial)).toBeLessThanOrEqual(1e-9);
      const pFromZ = Number.isNaN(result.z) ? Number.NaN : Math.min(1, 2 * normalSf(Math.abs(result.z)));
      expect(difference(pFromZ, c.pAsymptoticNoContinuity)).toBeLessThanOrEqual(1e-9);
    });
  });

  describe("rejects bad input", () => {
    it("throws StatsInputError for an empty sample", () => {
      expect(() => mannWhitneyU([], [1, 2])).toThrow(StatsInputError);
      expect(() => mannWhitneyU([1], [])).toThrow("mannWhitneyU: y is empty");
    });

    it("throws StatsInputError naming a NaN or infinite value", () => {
      expect(() => mannWhitneyU([1, Number.NaN], [2])).toThrow("mannWhitneyU: x must contain only finite numbers, but index 1 is NaN");
      expect(() => mannWhitneyU([1], [Infinity])).toThrow(StatsInputError);
    });
  });
});
