import { describe, expect, it } from "vitest";
import { binomialCdf } from "./binomial.js";
import { relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

const vectors = scipyVectors();

describe("binomialCdf", () => {
  it("sums the masses of a fair coin", () => {
    // P(X ≤ 1) for 4 fair tosses = (1 + 4)/16.
    expect(binomialCdf(1, 4, 0.5)).toBeCloseTo(5 / 16, 14);
  });

  it.each(vectors.binomial)("matches scipy.stats.binom.cdf(k=$k, n=$n, p=$p)", ({ k, n, p, cdf }) => {
    expect(relativeDifference(binomialCdf(k, n, p), cdf)).toBeLessThanOrEqual(1e-12);
  });

  it("is 0 below the support and 1 at or above n", () => {
    expect(binomialCdf(-1, 5, 0.5)).toBe(0);
    expect(binomialCdf(5, 5, 0.3)).toBe(1);
  });
});
