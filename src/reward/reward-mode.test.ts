import { describe, expect, it } from "vitest";
import { RewardModeSchema, rewardOf } from "./reward-mode.js";

describe("reward modes", () => {
  it("final pays emotion / 100 at the terminal step only", () => {
    expect(rewardOf("final", 30, 45, false)).toBe(0);
    expect(rewardOf("final", 45, 80, true)).toBe(0.8);
  });

  it("delta pays the change / 100 every step, terminal or not", () => {
    expect(rewardOf("delta", 30, 45, false)).toBeCloseTo(0.15, 12);
    expect(rewardOf("delta", 45, 20, true)).toBeCloseTo(-0.25, 12);
  });

  it("an episode's delta rewards sum to (final - start) / 100, its final rewards to final / 100", () => {
    const emotions = [30, 42, 35, 61, 74];
    const steps = emotions
      .slice(1)
      .map((emotion, index) => ({ before: emotions[index]!, after: emotion, done: index === emotions.length - 2 }));
    const sum = (mode: "final" | "delta") => steps.reduce((total, step) => total + rewardOf(mode, step.before, step.after, step.done), 0);
    expect(sum("delta")).toBeCloseTo((74 - 30) / 100, 12);
    expect(sum("final")).toBe(0.74);
  });

  it("knows exactly the two modes", () => {
    expect(RewardModeSchema.options).toEqual(["final", "delta"]);
    expect(RewardModeSchema.safeParse("sparse").success).toBe(false);
  });
});
