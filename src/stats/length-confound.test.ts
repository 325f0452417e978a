import { describe, expect, it } from "vitest";
import { lengthConfound } from "./length-confound.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("lengthConfound", () => {
  it("shows a condition effect vanish when it is entirely a length effect", () => {
    // FS is exactly 0.002 × length; B's replies are simply longer.
    const lengthA = [100, 120, 140, 110, 130];
    const lengthB = [200, 220, 190, 210, 230];
    const fs = (lengths: number[]): number[] => lengths.map((length) => 0.002 * length + 0.01 * Math.sin(length));
    const result = lengthConfound(fs(lengthA), fs(lengthB), lengthA, lengthB);
    expect(result.unadjusted.coefficient).toBeGreaterThan(0.15);
    expect(result.unadjusted.p).toBeLessThan(0.001);
    expect(Math.abs(result.adjusted.coefficient)).toBeLessThan(0.05);
    expect(result.adjusted.lengthP).toBeLessThan(0.001);
  });

  it("gives the difference of group means as the unadjusted coefficient", () => {
    const result = lengthConfound([0.2, 0.4], [0.7, 0.9], [10, 30], [20, 25]);
    expect(result.unadjusted.coefficient).toBeCloseTo(0.5, 12);
  });

  describe.each(scipyVectors().lengthConfound)("matches numpy least squares: $name", (c) => {
    const result = lengthConfound(c.fsA, c.fsB, c.lengthA, c.lengthB);

    it("has the same unadjusted and adjusted condition effect", () => {
      expect(difference(result.unadjusted.coefficient, c.unadjusted.coefficient)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.unadjusted.standardError, c.unadjusted.standardError)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.unadjusted.p, c.unadjusted.p)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.adjusted.coefficient, c.adjusted.coefficient)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.adjusted.standardError, c.adjusted.standardError)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.adjusted.p, c.adjusted.p)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.adjusted.lengthCoefficient, c.adjusted.lengthCoefficient)).toBeLessThanOrEqual(1e-9);
      expect(difference(result.adjusted.lengthP, c.adjusted.lengthP)).toBeLessThanOrEqual(1e-9);
    });
  });

  describe("rejects data it cannot separate", () => {
    it("throws StatsInputError when every length is the same", () => {
      expect(() => lengthConfound([0.1, 0.2], [0.3, 0.4], [50, 50], [50, 50])).toThrow("all lengths are equal");
    });

    it("throws StatsInputError when length is determined by the condition", () => {
      expect(() => lengthConfound([0.1, 0.2, 0.3], [0.3, 0.4, 0.6], [50, 50, 50], [80, 80, 80])).toThrow(
        "length is a linear function of the condition",
      );
    });

    it("throws StatsInputError for missing lengths, empty groups and NaN", () => {
      expect(() => lengthConfound([0.1, 0.2], [0.3], [10], [20])).toThrow("fsA/lengthA have 2/1");
      expect(() => lengthConfound([], [0.3], [], [20])).toThrow("lengthConfound: fsA is empty");
      expect(() => lengthConfound([0.1, Number.NaN], [0.3], [1, 2], [3])).toThrow(StatsInputError);
    });
  });
});
