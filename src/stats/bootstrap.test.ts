import { describe, expect, it } from "vitest";
import { bootstrapMeanCI, bootstrapStatisticCI } from "./bootstrap.js";
import { pearson } from "./pearson.js";
import { StatsInputError } from "./errors.js";
import { difference, scipyVectors } from "./fixtures/scipy-vectors.js";

describe("bootstrapMeanCI", () => {
  const scores = [0.2, 0.4, 0.4, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 1.0];

  it("brackets the sample mean", () => {
    const { mean, ci95 } = bootstrapMeanCI(scores, { seed: 1 });
    expect(mean).toBeCloseTo(0.61, 15);
    expect(ci95[0]).toBeLessThan(mean);
    expect(ci95[1]).toBeGreaterThan(mean);
  });

  it("repeats exactly for the same seed and changes with another", () => {
    // Distinct values, so resampled means rarely coincide and any seed change shows.
    const spread = Array.from({ length: 25 }, (_, i) => Math.sin(i + 1));
    const first = bootstrapMeanCI(spread, { seed: 42, resamples: 2000 });
    expect(bootstrapMeanCI(spread, { seed: 42, resamples: 2000 })).toEqual(first);
    expect(bootstrapMeanCI(spread, { seed: 43, resamples: 2000 }).ci95).not.toEqual(first.ci95);
  });

  it("narrows as the confidence level drops", () => {
    const wide = bootstrapMeanCI(scores, { seed: 5, confidence: 0.99 }).ci95;
    const narrow = bootstrapMeanCI(scores, { seed: 5, confidence: 0.8 }).ci95;
    expect(narrow[1] - narrow[0]).toBeLessThan(wide[1] - wide[0]);
  });

  it("collapses to the value when there is no spread", () => {
    expect(bootstrapMeanCI([0.3, 0.3, 0.3], { seed: 9 }).ci95).toEqual([0.3, 0.3]);
    expect(bootstrapMeanCI([7], { seed: 9 })).toEqual({ mean: 7, ci95: [7, 7] });
  });

  it.each(scipyVectors().bootstrap)(
    "reproduces the Python re-implementation (mulberry32 + numpy.percentile): seed $seed",
    ({ values, resamples, confidence, seed, mean, low, high }) => {
      const result = bootstrapMeanCI(values, { resamples, confidence, seed });
      expect(difference(result.mean, mean)).toBeLessThanOrEqual(1e-12);
      expect(difference(result.ci95[0], low)).toBeLessThanOrEqual(1e-12);
      expect(difference(result.ci95[1], high)).toBeLessThanOrEqual(1e-12);
    },
  );

  it("rejects empty or NaN values and bad options with StatsInputError", () => {
    expect(() => bootstrapMeanCI([], { seed: 1 })).toThrow("bootstrapMeanCI: values is empty");
    expect(() => bootstrapMeanCI([1, Number.NaN], { seed: 1 })).toThrow("index 1 is NaN");
    expect(() => bootstrapMeanCI([1, 2], { seed: 1, resamples: 0 })).toThrow("resamples must be an integer >= 1");
    expect(() => bootstrapMeanCI([1, 2], { seed: 1, confidence: 1 })).toThrow(StatsInputError);
    expect(() => bootstrapMeanCI([1, 2], { seed: -3 })).toThrow("seed must be an integer >= 0");
  });
});

describe("bootstrapStatisticCI", () => {
  const pearsonOf = (x: readonly number[], y: readonly number[]) => (indices: readonly number[]) => {
    const xs = indices.map((index) => x[index] as number);
    const ys = indices.map((index) => y[index] as number);
    return pearson(xs, ys).r;
  };

  it("draws the same indices as bootstrapMeanCI, so the mean as a statistic gives its interval", () => {
    const values = [0.2, 0.9, 0.4, 0.4, 0.7, 1, 0.1];
    const meanOf = (indices: readonly number[]) => indices.reduce((sum, index) => sum + (values[index] as number), 0) / indices.length;
    expect(bootstrapStatisticCI(values.length, meanOf, { seed: 8, resamples: 500 }).ci95).toEqual(
      bootstrapMeanCI(values, { seed: 8, resamples: 500 }).ci95,
    );
  });

  it.each(scipyVectors().bootstrapStatistic)(
    "reproduces the Python re-implementation with scipy's pearsonr per resample: seed $seed",
    ({ x, y, resamples, confidence, seed, low, high, undefinedResamples }) => {
      const result = bootstrapStatisticCI(x.length, pearsonOf(x, y), { resamples, confidence, seed });
      expect(result.resamples).toBe(resamples);
      expect(result.undefinedResamples).toBe(undefinedResamples);
      expect(difference(result.ci95![0], low)).toBeLessThanOrEqual(1e-12);
      expect(difference(result.ci95![1], high)).toBeLessThanOrEqual(1e-12);
    },
  );

  it("gives no interval when the statistic is undefined in every resample", () => {
    expect(bootstrapStatisticCI(3, () => Number.NaN, { seed: 1, resamples: 10 })).toEqual({
      ci95: null,
      resamples: 10,
      undefinedResamples: 10,
    });
    expect(() => bootstrapStatisticCI(0, () => 1, { seed: 1 })).toThrow("bootstrapStatisticCI: size must be an integer >= 1");
  });
});
