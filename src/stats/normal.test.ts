import { describe, expect, it } from "vitest";
import { erfc, normalCdf, normalQuantile, normalSf } from "./normal.js";
import { relativeDifference, scipyVectors } from "./fixtures/scipy-vectors.js";

const vectors = scipyVectors();

describe("normal distribution", () => {
  it("has Φ(0) = ½ and the familiar 97.5% point", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalSf(1.959963984540054)).toBeCloseTo(0.025, 15);
  });

  it.each(vectors.normal)("matches scipy.special.ndtr at z=$z", ({ z, cdf, sf }) => {
    expect(relativeDifference(normalCdf(z), cdf)).toBeLessThanOrEqual(1e-13);
    expect(relativeDifference(normalSf(z), sf)).toBeLessThanOrEqual(1e-13);
  });

  it("keeps relative accuracy deep in the tail", () => {
    // 1 − Φ(37.5) ≈ 4.6e-308: computing 1 − Φ would give 0.
    expect(normalSf(37.5)).toBeGreaterThan(0);
    expect(erfc(26)).toBeGreaterThan(0);
  });
});

describe("normalQuantile", () => {
  it.each(vectors.normalQuantile)("matches scipy.special.ndtri at p=$p", ({ p, z }) => {
    expect(relativeDifference(normalQuantile(p), z)).toBeLessThanOrEqual(1e-14);
  });

  it("inverts normalCdf", () => {
    for (const z of [-6, -2.5, -0.1, 0.7, 3]) {
      expect(normalQuantile(normalCdf(z))).toBeCloseTo(z, 12);
    }
  });

  it("returns infinities at the ends and NaN outside [0, 1]", () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(1.5)).toBeNaN();
  });
});
