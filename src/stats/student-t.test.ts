import { describe, expect, it } from "vitest";
import { studentTCdf, studentTSf, studentTTwoSidedP } from "./student-t.js";
import { relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

const vectors = scipyVectors();

describe("Student t distribution", () => {
  it("is the Cauchy distribution at one degree of freedom", () => {
    // P(T > 1) = ¼ for the Cauchy distribution.
    expect(studentTSf(1, 1)).toBeCloseTo(0.25, 14);
  });

  it.each(vectors.studentT)("matches scipy.stats.t at t=$t, df=$df", ({ t, df, cdf, sf }) => {
    // Beyond ~10⁴ df the continued fraction works with x = ν/(ν + t²) within 1e-4 of 1, and
    // the rounding of x costs about a·2⁻⁵³ relative accuracy (a = ν/2): see student-t.ts.
    const tolerance = df <= 1000 ? 1e-12 : 2e-11;
    expect(relativeDifference(studentTCdf(t, df), cdf)).toBeLessThanOrEqual(tolerance);
    expect(relativeDifference(studentTSf(t, df), sf)).toBeLessThanOrEqual(tolerance);
  });

  it("gives the two-sided p-value used by regression and correlation tests", () => {
    expect(studentTTwoSidedP(-2.5, 10)).toBeCloseTo(2 * studentTSf(2.5, 10), 15);
    expect(studentTTwoSidedP(Infinity, 3)).toBe(0);
  });

  it("is NaN without degrees of freedom, like SciPy", () => {
    expect(studentTSf(1, 0)).toBeNaN();
  });
});
