import { describe, expect, it } from "vitest";
import { mannWhitneyExactCdf } from "./mann-whitney-distribution.js";

describe("mannWhitneyExactCdf", () => {
  it("gives 1/C(n1+n2, n1) for U = 0, the complete separation", () => {
    expect(mannWhitneyExactCdf(0, 3, 4)).toBeCloseTo(1 / 35, 16);
    expect(mannWhitneyExactCdf(0, 8, 40)).toBeCloseTo(1 / 377348994, 20);
  });

  it("counts arrangements exactly for tiny samples", () => {
    // n1 = n2 = 2: U takes 0,1,2,2,3,4 over the 6 orderings, so P(U ≤ 2) = 4/6.
    expect(mannWhitneyExactCdf(2, 2, 2)).toBeCloseTo(4 / 6, 15);
  });

  it("is symmetric in the two sample sizes", () => {
    expect(mannWhitneyExactCdf(17, 5, 9)).toBe(mannWhitneyExactCdf(17, 9, 5));
  });

  it("is 0 below the support and 1 at its top", () => {
    expect(mannWhitneyExactCdf(-1, 3, 3)).toBe(0);
    expect(mannWhitneyExactCdf(9, 3, 3)).toBe(1);
  });

  it("stays exact when the counts exceed 2⁵³", () => {
    // C(1008, 8) = 25708099169553626826 ≈ 2.6e19; P(U ≤ 0) is its reciprocal to full precision.
    expect(mannWhitneyExactCdf(0, 8, 1000) * Number(25708099169553626826n)).toBeCloseTo(1, 14);
  });
});
