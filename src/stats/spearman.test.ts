import { describe, expect, it } from "vitest";
import { spearman } from "./spearman.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("spearman", () => {
  it("is 1 for any increasing relation, however non-linear", () => {
    const result = spearman([1, 2, 3, 4, 5, 6], [1, 4, 9, 16, 25, 1000]);
    expect(result.rho).toBeCloseTo(1, 15);
    expect(result.p).toBeLessThan(1e-12);
  });

  it("uses average ranks for ties", () => {
    // Ranks of y: 1.5, 1.5, 3, 4 against 1, 2, 3, 4 -> Pearson r of the ranks.
    const { rho } = spearman([1, 2, 3, 4], [7, 7, 8, 9]);
    expect(rho).toBeCloseTo(0.9486832980505138, 14);
  });

  it("is undefined (NaN) for constant input and a single pair", () => {
    expect(spearman([1, 1, 1], [1, 2, 3])).toEqual({ rho: Number.NaN, p: Number.NaN, n: 3 });
    expect(spearman([0.5], [0.7]).rho).toBeNaN();
  });

  it("has rho = ±1 but no p-value with two pairs", () => {
    const result = spearman([1, 2], [5, 3]);
    expect(result.rho).toBeCloseTo(-1, 15);
    expect(result.p).toBeNaN();
  });

  it.each(scipyVectors().spearman)("matches scipy.stats.spearmanr: $name", ({ x, y, rho, p }) => {
    const result = spearman(x, y);
    expect(difference(result.rho, rho)).toBeLessThanOrEqual(1e-9);
    expect(difference(result.p, p)).toBeLessThanOrEqual(1e-9);
  });

  it("rejects empty, unpaired and NaN input with StatsInputError", () => {
    expect(() => spearman([], [])).toThrow("spearman: x is empty");
    expect(() => spearman([1, 2, 3], [1, 2])).toThrow(StatsInputError);
    expect(() => spearman([1, 2], [1, Number.NaN])).toThrow("spearman: y must contain only finite numbers, but index 1 is NaN");
  });
});
