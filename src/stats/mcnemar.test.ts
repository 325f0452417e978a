import { describe, expect, it } from "vitest";
import { mcnemarExact, mcnemarFromPairs } from "./mcnemar.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("mcnemarExact", () => {
  it("doubles the binomial tail of the smaller discordant count", () => {
    // 1 vs 10 discordant pairs: p = 2·(1 + 11)/2¹¹.
    const result = mcnemarExact(1, 10);
    expect(result.statistic).toBe(1);
    expect(result.p).toBeCloseTo((2 * 12) / 2048, 15);
  });

  it("is 1 without discordant pairs and when they split evenly", () => {
    expect(mcnemarExact(0, 0).p).toBe(1);
    expect(mcnemarExact(3, 3).p).toBe(1);
  });

  it.each(scipyVectors().mcnemar)("matches scipy.stats.binomtest(min(b, c), b + c): b=$b c=$c", ({ b, c, statistic, p }) => {
    const result = mcnemarExact(b, c);
    expect(result.statistic).toBe(statistic);
    expect(difference(result.p, p)).toBeLessThanOrEqual(1e-9);
  });

  it("rejects counts that are negative or not whole numbers", () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(StatsInputError);
    expect(() => mcnemarExact(2.5, 3)).toThrow("mcnemarExact: b (A succeeded, B failed) must be an integer >= 0, but is 2.5");
    expect(() => mcnemarExact(Number.NaN, 3)).toThrow(StatsInputError);
  });
});

describe("mcnemarFromPairs", () => {
  it("counts the discordant pairs of paired outcomes", () => {
    const a = [true, true, false, false, true, true];
    const b = [true, false, false, true, false, false];
    expect(mcnemarFromPairs(a, b)).toEqual(mcnemarExact(3, 1));
  });

  it("rejects unpaired or empty input", () => {
    expect(() => mcnemarFromPairs([true], [true, false])).toThrow("same length (paired values), but have 1 and 2");
    expect(() => mcnemarFromPairs([], [])).toThrow(StatsInputError);
  });
});
