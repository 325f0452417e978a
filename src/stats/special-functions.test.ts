import { describe, expect, it } from "vitest";
import { incompleteBeta, logBeta, logGamma } from "./special-functions.js";
import { difference, relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

const vectors = scipyVectors();

describe("logGamma", () => {
  it("gives ln((n−1)!) at integers and ln(√π) at ½", () => {
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 13);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 14);
  });

  it.each(vectors.logGamma)("matches scipy.special.gammaln at x=$x", ({ x, value }) => {
    // Relative where the value is large, absolute near the zeros of lnΓ at 1 and 2.
    expect(Math.min(difference(logGamma(x), value), relativeDifference(logGamma(x), value))).toBeLessThanOrEqual(1e-14);
  });

  it("is NaN outside its domain", () => {
    expect(logGamma(0)).toBeNaN();
    expect(logGamma(-1.5)).toBeNaN();
  });
});

describe("logBeta", () => {
  it("agrees with the log-gamma definition for small arguments", () => {
    expect(logBeta(2, 3)).toBeCloseTo(Math.log(1 / 12), 14);
  });

  it("keeps precision for large arguments, where three log-gammas would cancel", () => {
    // Reference values from mpmath at 30 digits: log(beta(1000, 1000)), log(beta(50000, 0.5)).
    expect(relativeDifference(logBeta(1000, 1000), -1388.4826016359023)).toBeLessThan(1e-15);
    expect(relativeDifference(logBeta(50000, 0.5), -4.837521699280441)).toBeLessThan(1e-14);
  });
});

describe("incompleteBeta", () => {
  it.each(vectors.incompleteBeta)("matches scipy.special.betainc(a=$a, b=$b, x=$x)", ({ x, a, b, value }) => {
    const { lower, upper } = incompleteBeta(x, a, b);
    expect(relativeDifference(lower, value)).toBeLessThanOrEqual(1e-12);
    expect(difference(lower + upper, 1)).toBeLessThanOrEqual(1e-15);
  });

  it("returns the exact ends of the interval", () => {
    expect(incompleteBeta(0, 2, 3)).toEqual({ lower: 0, upper: 1 });
    expect(incompleteBeta(1, 2, 3)).toEqual({ lower: 1, upper: 0 });
  });

  it("is the uniform cdf when a = b = 1", () => {
    expect(incompleteBeta(0.3, 1, 1).lower).toBeCloseTo(0.3, 14);
  });
});
