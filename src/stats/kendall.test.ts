import { describe, expect, it } from "vitest";
import { kendallExactP, kendallTauB } from "./kendall.js";
import { StatsInputError } from "./errors.js";
import { difference, relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("kendallTauB", () => {
  it("is 1 for the same order and -1 for the reverse, however the values are spaced", () => {
    expect(kendallTauB([54.8, 37.55, 28.95], [70.34, 65.6, 40.81]).tau).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [100, 10, 1, 0]).tau).toBe(-1);
  });

  it("corrects for ties (tau-b): pairs tied in one variable count in neither C nor D", () => {
    // x ties the first two: 5 untied pairs in x, 6 in y; C - D = 5 -> 5 / sqrt(5 * 6).
    expect(kendallTauB([1, 1, 2, 3], [1, 2, 3, 4]).tau).toBeCloseTo(5 / Math.sqrt(30), 15);
  });

  it("is undefined (NaN) for a constant input or a single pair", () => {
    expect(kendallTauB([1, 2, 3], [4, 4, 4]).tau).toBeNaN();
    expect(kendallTauB([1], [2]).p).toBeNaN();
  });

  it("has the exact null distribution of Kendall's statistic: three untied agents in the same order give p = 1/3", () => {
    // 2 of the 3! orders have 0 or 3 discordant pairs.
    expect(kendallExactP(3, 3)).toBeCloseTo(1 / 3, 15);
    expect(kendallExactP(4, 3)).toBe(1);
  });

  it.each(scipyVectors().kendall)("matches scipy.stats.kendalltau: $name", ({ x, y, tau, p, method }) => {
    const result = kendallTauB(x, y);
    expect(difference(result.tau, tau)).toBeLessThanOrEqual(1e-12);
    expect(p < 1e-6 ? relativeDifference(result.p, p) : difference(result.p, p)).toBeLessThanOrEqual(1e-9);
    if (!Number.isNaN(tau)) expect(result.method).toBe(method);
  });

  it("rejects empty, unpaired and NaN input with StatsInputError", () => {
    expect(() => kendallTauB([], [])).toThrow("kendallTauB: x is empty");
    expect(() => kendallTauB([1, 2, 3], [1, 2])).toThrow(StatsInputError);
    expect(() => kendallTauB([Number.NaN, 1], [1, 2])).toThrow("kendallTauB: x must contain only finite numbers, but index 0 is NaN");
  });
});
