import { describe, expect, it } from "vitest";
import { wilsonInterval } from "./wilson.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("wilsonInterval", () => {
  it("stays inside [0, 1] at the extremes, unlike the Wald interval", () => {
    const [noneLow, noneHigh] = wilsonInterval(0, 10);
    expect(noneLow).toBe(0);
    expect(noneHigh).toBeCloseTo(0.27753279986288926, 12);
    const [allLow, allHigh] = wilsonInterval(10, 10);
    expect(allHigh).toBe(1);
    expect(allLow).toBeCloseTo(1 - 0.27753279986288926, 12);
  });

  it("pulls the interval towards ½: its centre lies above a small proportion", () => {
    const [low, high] = wilsonInterval(2, 20);
    expect((low + high) / 2).toBeGreaterThan(2 / 20);
  });

  it.each(scipyVectors().wilson)("matches the statsmodels Wilson formula: k=$k n=$n at $confidence", (c) => {
    const [low, high] = wilsonInterval(c.k, c.n, c.confidence);
    expect(difference(low, c.low)).toBeLessThanOrEqual(1e-12);
    expect(difference(high, c.high)).toBeLessThanOrEqual(1e-12);
  });

  it("rejects impossible counts and confidence levels", () => {
    expect(() => wilsonInterval(1, 0)).toThrow("wilsonInterval: n (trials) must be an integer >= 1, but is 0");
    expect(() => wilsonInterval(5, 4)).toThrow("k (successes) must not exceed n (trials)");
    expect(() => wilsonInterval(-1, 4)).toThrow(StatsInputError);
    expect(() => wilsonInterval(1, 4, 95)).toThrow("confidence must be strictly between 0 and 1, but is 95");
  });
});
