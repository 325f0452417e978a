import { describe, expect, it } from "vitest";
import * as stats from "./index.js";

describe("stats index", () => {
  it("exposes every public test and helper", () => {
    const expected = [
      "StatsInputError",
      "bootstrapMeanCI",
      "bootstrapStatisticCI",
      "wilsonInterval",
      "mannWhitneyU",
      "wilcoxonSignedRank",
      "mcnemarExact",
      "mcnemarFromPairs",
      "holmAdjust",
      "ols",
      "olsTerm",
      "lengthConfound",
      "spearman",
      "pearson",
      "kendallTauB",
      "averageRanks",
      "normalCdf",
      "normalSf",
      "normalQuantile",
      "studentTCdf",
      "studentTSf",
      "binomialCdf",
      "incompleteBeta",
    ];
    for (const name of expected) expect(typeof (stats as Record<string, unknown>)[name], name).toBe("function");
  });
});
