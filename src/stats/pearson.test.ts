import { describe, expect, it } from "vitest";
import { pearson } from "./pearson.js";
import { StatsInputError } from "./errors.js";
import { difference, relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("pearson", () => {
  it("is ±1 for an exact linear relation, with p = 0", () => {
    expect(pearson([1, 2, 3, 4], [10, 20, 30, 40])).toEqual({ r: 1, p: 0, n: 4 });
    expect(pearson([1, 2, 3, 4], [4, 3, 2, 1]).r).toBe(-1);
  });

  it("is undefined (NaN) for constant input and a single pair; exactly ±1 with p = 1 for two pairs", () => {
    expect(pearson([3, 3, 3], [1, 2, 3])).toEqual({ r: Number.NaN, p: Number.NaN, n: 3 });
    expect(pearson([0.5], [0.7]).r).toBeNaN();
    expect(pearson([1, 2], [5, 3])).toEqual({ r: -1, p: 1, n: 2 });
  });

  it.each(scipyVectors().pearson)("matches scipy.stats.pearsonr: $name", ({ x, y, r, p }) => {
    const result = pearson(x, y);
    expect(difference(result.r, r)).toBeLessThanOrEqual(1e-12);
    // Tiny p-values are compared relatively.
    expect(p < 1e-6 ? relativeDifference(result.p, p) : difference(result.p, p)).toBeLessThanOrEqual(1e-9);
  });

  it("rejects empty, unpaired and NaN input with StatsInputError", () => {
    expect(() => pearson([], [])).toThrow("pearson: x is empty");
    expect(() => pearson([1, 2, 3], [1, 2])).toThrow(StatsInputError);
    expect(() => pearson([1, 2], [1, Number.POSITIVE_INFINITY])).toThrow(
      "pearson: y must contain only finite numbers, but index 1 is Infinity",
    );
  });
});
