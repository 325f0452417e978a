import { describe, expect, it } from "vitest";
import { createSeededRandom, logNormalSampler } from "./mock-llm-random.js";

describe("createSeededRandom", () => {
  it("repeats its sequence for a seed and stays in [0, 1)", () => {
    const a = createSeededRandom(7);
    const b = createSeededRandom(7);
    const draws = Array.from({ length: 1000 }, () => a());
    expect(draws).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(createSeededRandom(8)()).not.toBe(draws[0]);
  });
});

describe("logNormalSampler", () => {
  it("is centred on the median and right-skewed", () => {
    const sample = logNormalSampler(200, 0.5, createSeededRandom(1));
    const draws = Array.from({ length: 4000 }, sample).sort((x, y) => x - y);
    const median = draws[2000] ?? 0;
    const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
    expect(median).toBeGreaterThan(180);
    expect(median).toBeLessThan(220);
    expect(mean).toBeGreaterThan(median);
    expect(draws[0]).toBeGreaterThan(0);
  });

  it("degenerates to the median when sigma is 0", () => {
    expect(logNormalSampler(150, 0, createSeededRandom(3))()).toBe(150);
  });
});
