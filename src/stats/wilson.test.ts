import { describe, expect, it } from "vitest";
import { wilsonInterval } from "./wilson.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("wilsonInterval", () => {
  it("stays inside [0, 1] at the extremes, unlike the Wald interval", () => {
    const none = wilsonInterval(0, 10);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775327998628899, 12);
    const all = wilsonInterval(10, 10);
    expect(all.high).toBe(1);
    expect(all.low).toBeCloseTo(1 - 0.2775327998628899, 12);
  });

  it("is centred away from ½ less than the raw proportion", () => {
    const { proportion, low, high } = wilsonInterval(2, 20);
    expect(proportion).toBe(0.1);
    expect((low + high) / 2).toBeGreaterThan(0.1);
  });

  it.each(scipyVectors().wilson)("matches the statsmodels Wilson formula: k=$k n=$n at $confidence", (c) => {
    const result = wilsonInterval(c.k, c.n, c.confidence);
    expect(difference(result.low, c.low)).toBeLessThanOrEqual(1e-12);
    expect(difference(result.high, c.high)).toBeLessThanOrEqual(1e-12);
  });

  it("rejects impossible counts and confidence levels", () => {
    expect(() => wilsonInterval(1, 0)).toThrow("wilsonInterval: n (trials) must be an integer >= 1, but is 0");
    expect(() => wilsonInterval(5, 4)).toThrow("k (successes) must not exceed n (trials)");
    expect(() => wilsonInterval(-1, 4)).toThrow(StatsInputError);
    expect(() => wilsonInterval(1, 4, 95)).toThrow("confidence must be strictly between 0 and 1, but is 95");
  });
});
