import { describe, expect, it } from "vitest";
import { ecsOf, ecsScores } from "./ecs.js";

describe("ECS (docs/output-format.md)", () => {
  it("is 1 for perfect predictions and weighs misses by confidence", () => {
    expect(ecsOf([{ index: 0, predicted: 40, confidence: 100, actual: 40 }])).toBe(1);
    // |60-40|/100 * (0.5 + 0.5*1) = 0.2 ; with confidence 0: 0.2 * 0.5 = 0.1
    expect(ecsOf([{ index: 0, predicted: 60, confidence: 100, actual: 40 }])).toBeCloseTo(0.8, 12);
    expect(ecsOf([{ index: 0, predicted: 60, confidence: 0, actual: 40 }])).toBeCloseTo(0.9, 12);
    expect(ecsOf([])).toBeNull();
  });

  it("splits before and after the manipulation turn and reports the drop and Spearman rho", () => {
    const turns = [
      { index: 0, predicted: 50, confidence: 100, actual: 50 },
      { index: 1, predicted: 80, confidence: 100, actual: 40 },
      { index: 2, predicted: 70, confidence: 100, actual: 30 },
    ];
    const scores = ecsScores(turns, 1);
    expect(scores.before).toBe(1);
    expect(scores.after).toBeCloseTo(1 - (0.4 + 0.4) / 2, 12); // misses of 40 points at full confidence
    expect(scores.drop).toBeCloseTo(0.4, 12);
    expect(scores.spearman).toBeCloseTo(-0.5, 12); // ranks (1,3,2) vs (3,2,1)
    expect(ecsScores(turns.slice(0, 2), 1).spearman).toBeNull();
  });
});
