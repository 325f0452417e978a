import { describe, expect, it } from "vitest";
import { holmAdjust } from "./holm.js";
import { StatsInputError } from "./errors.js";
import { scipyVectors } from "./fixtures/scipy-vectors.js";

describe("holmAdjust", () => {
  it("multiplies the smallest p by m, the next by m − 1, and so on", () => {
    // 0.01·3 = 0.03, 0.02·2 = 0.04, 0.03·1 = 0.03 -> raised to 0.04 by monotonicity.
    const adjusted = holmAdjust([0.01, 0.02, 0.03]);
    expect(adjusted[0]).toBeCloseTo(0.03, 15);
    expect(adjusted[1]).toBeCloseTo(0.04, 15);
    expect(adjusted[2]).toBeCloseTo(0.04, 15);
  });

  it("keeps the input order and caps at 1", () => {
    expect(holmAdjust([0.9, 0.01, 0.5])).toEqual([1, 0.03, 1]);
  });

  it("leaves a single p-value unchanged", () => {
    expect(holmAdjust([0.042])).toEqual([0.042]);
  });

  it.each(scipyVectors().holm)("matches the step-down definition for $p", ({ p, adjusted }) => {
    holmAdjust(p).forEach((value, index) => expect(value).toBeCloseTo(adjusted[index] as number, 15));
  });

  it("rejects an empty list and values outside [0, 1]", () => {
    expect(() => holmAdjust([])).toThrow(StatsInputError);
    expect(() => holmAdjust([0.1, Number.NaN])).toThrow("holmAdjust: p-values must lie in [0, 1], but index 1 is NaN");
    expect(() => holmAdjust([1.2])).toThrow(StatsInputError);
  });
});
