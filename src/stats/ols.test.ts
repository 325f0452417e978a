import { describe, expect, it } from "vitest";
import { ols, olsTerm } from "./ols.js";
import { StatsInputError } from "./errors.js";
import { difference, relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("ols", () => {
  it("recovers an exact line's coefficients", () => {
    const fit = ols([3, 5, 7, 9.5], [{ name: "x", values: [1, 2, 3, 4] }]);
    expect(olsTerm(fit, "intercept").coefficient).toBeCloseTo(0.75, 12);
    expect(olsTerm(fit, "x").coefficient).toBeCloseTo(2.15, 12);
    expect(fit.residualDf).toBe(2);
    expect(fit.terms.map((term) => term.name)).toEqual(["intercept", "x"]);
  });

  it("estimates a group difference with a 0/1 predictor", () => {
    // The coefficient of an indicator is the difference of the group means.
    const fit = ols([1, 2, 3, 6, 7, 8], [{ name: "group", values: [0, 0, 0, 1, 1, 1] }]);
    expect(olsTerm(fit, "group").coefficient).toBeCloseTo(5, 12);
    // t = 5 / √(2/3) ≈ 6.12 on 4 degrees of freedom.
    expect(olsTerm(fit, "group").t).toBeCloseTo(5 / Math.sqrt(2 / 3), 12);
    expect(olsTerm(fit, "group").p).toBeCloseTo(0.0036022326091, 10);
  });

  describe.each(scipyVectors().ols)("matches numpy.linalg.lstsq + scipy.stats.t: $name", (c) => {
    const fit = ols(c.y, c.predictors);

    it("has the same coefficients, standard errors, t and p", () => {
      fit.terms.forEach((term, j) => {
        expect(difference(term.coefficient, c.coefficients[j] as number), `${term.name} coefficient`).toBeLessThanOrEqual(1e-9);
        expect(difference(term.standardError, c.standardErrors[j] as number), `${term.name} SE`).toBeLessThanOrEqual(1e-9);
        expect(difference(term.t, c.t[j] as number), `${term.name} t`).toBeLessThanOrEqual(1e-9);
        expect(difference(term.p, c.p[j] as number), `${term.name} p`).toBeLessThanOrEqual(1e-9);
      });
      expect(difference(fit.rSquared, c.rSquared)).toBeLessThanOrEqual(1e-9);
      expect(fit.residualDf).toBe(c.df);
    });
  });

  const simpleRegressions = scipyVectors().ols.filter((c) => c.linregress !== undefined);
  describe.each(simpleRegressions)("agrees with scipy.stats.linregress: $name", (c) => {
    it("has linregress's slope, standard errors, p-value and r²", () => {
      const fit = ols(c.y, c.predictors);
      const reference = c.linregress!;
      const slope = fit.terms[1]!;
      expect(relativeDifference(slope.coefficient, reference.slope)).toBeLessThanOrEqual(1e-9);
      expect(relativeDifference(slope.standardError, reference.stderr)).toBeLessThanOrEqual(1e-9);
      expect(difference(slope.p, reference.pvalue)).toBeLessThanOrEqual(1e-9);
      expect(difference(fit.terms[0]!.coefficient, reference.intercept)).toBeLessThanOrEqual(1e-9);
      expect(difference(fit.terms[0]!.standardError, reference.interceptStderr)).toBeLessThanOrEqual(1e-9);
      expect(difference(fit.rSquared, reference.rvalue ** 2)).toBeLessThanOrEqual(1e-9);
    });
  });

  describe("rejects bad input", () => {
    it("throws StatsInputError for a constant or collinear predictor", () => {
      expect(() => ols([1, 2, 3, 4], [{ name: "x", values: [2, 2, 2, 2] }])).toThrow(
        'ols: design matrix is rank deficient: predictor "x" is constant',
      );
      const x = [1, 2, 3, 4, 5];
      expect(() =>
        ols(
          [1, 3, 2, 5, 4],
          [
            { name: "x", values: x },
            { name: "twiceX", values: x.map((v) => 2 * v + 1) },
          ],
        ),
      ).toThrow(StatsInputError);
    });

    it("throws StatsInputError when there are no residual degrees of freedom", () => {
      expect(() => ols([1, 2], [{ name: "x", values: [1, 2] }])).toThrow("2 coefficients need more than 2 observations");
    });

    it("throws StatsInputError for mismatched lengths, NaN values and duplicate names", () => {
      expect(() => ols([1, 2, 3], [{ name: "x", values: [1, 2] }])).toThrow('predictor "x" has 2 values but y has 3');
      expect(() => ols([1, Number.NaN, 3, 4], [{ name: "x", values: [1, 2, 3, 4] }])).toThrow(
        "ols: y must contain only finite numbers, but index 1 is NaN",
      );
      expect(() => ols([1, 2, 3, 4], [{ name: "intercept", values: [1, 2, 3, 5] }])).toThrow(StatsInputError);
      expect(() => ols([], [])).toThrow("ols: y is empty");
    });

    it("throws when asked for a term the fit does not have", () => {
      expect(() => olsTerm(ols([1, 2, 4], [{ name: "x", values: [1, 2, 3] }]), "z")).toThrow('no term named "z"');
    });
  });
});
