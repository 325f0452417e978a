import { describe, expect, it } from "vitest";
import { signedRankTwoSidedP } from "./signed-rank-distribution.js";

describe("signedRankTwoSidedP", () => {
  it("gives 2/2ⁿ when every difference has the same sign", () => {
    // R⁺ = 15 is the largest possible sum of ranks 1..5: one subset of 32 reaches it.
    expect(signedRankTwoSidedP([1, 2, 3, 4, 5], 15)).toBe(2 / 32);
    expect(signedRankTwoSidedP([1, 2, 3, 4, 5], 0)).toBe(2 / 32);
  });

  it("caps the p-value at 1 at the centre of the distribution", () => {
    expect(signedRankTwoSidedP([1, 2, 3, 4], 5)).toBe(1);
  });

  it("handles average (half) ranks from ties", () => {
    // Ranks 1.5, 1.5, 3: subset sums 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6 -> P(R⁺ ≤ 1.5) = 3/8.
    expect(signedRankTwoSidedP([1.5, 1.5, 3], 1.5)).toBe(0.75);
  });
});
