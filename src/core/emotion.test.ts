import { describe, expect, it } from "vitest";
import { applyChange, emotionState, isCollapse, isSuccess } from "./emotion.js";
import { getPreset } from "./preset.js";
import { endReasonOf } from "../episode/end-rules.js";

describe("presets (spec section 1)", () => {
  it("hold the published rules", () => {
    expect(getPreset("aeb")).toMatchObject({ start: 50, clamp: 10, success: 95, failure: { op: "<=", value: 10 }, maxTurns: 8 });
    expect(getPreset("sage")).toMatchObject({ start: 40, clamp: 10, success: 100, failure: { op: "<", value: 10 }, maxTurns: 10 });
    expect(getPreset("rlver")).toMatchObject({ start: 30, clamp: null, success: 100, failure: { op: "<=", value: 0 }, maxTurns: 8 });
  });

  it("names the known presets when one is unknown", () => {
    expect(() => getPreset("nope")).toThrow(/unknown preset "nope" \(known: aeb, sage, rlver\)/);
  });
});

describe("applyChange", () => {
  it("clamps the summed change to [-D, +D] where the preset clamps", () => {
    expect(applyChange(50, 9, 4, getPreset("aeb"))).toEqual({ emotion: 60, delta: 10 });
    expect(applyChange(50, -9, -3, getPreset("aeb"))).toEqual({ emotion: 40, delta: -10 });
  });

  it("does not clamp the change under rlver, but keeps emotion in [0, 100]", () => {
    expect(applyChange(30, 25, 0, getPreset("rlver"))).toEqual({ emotion: 55, delta: 25 });
    expect(applyChange(95, 25, 0, getPreset("rlver"))).toEqual({ emotion: 100, delta: 5 });
    expect(applyChange(5, -25, 0, getPreset("rlver"))).toEqual({ emotion: 0, delta: -5 });
  });
});

describe("states and end rules", () => {
  it("maps emotion to S/A/B/C/F", () => {
    expect([100, 99, 70, 69, 40, 39, 10, 9, 0].map(emotionState)).toEqual(["S", "A", "A", "B", "B", "C", "C", "F", "F"]);
  });

  it("distinguishes sage's strict failure from aeb's inclusive one", () => {
    expect(isCollapse(10, getPreset("aeb"))).toBe(true);
    expect(isCollapse(10, getPreset("sage"))).toBe(false);
    expect(isCollapse(9, getPreset("sage"))).toBe(true);
    expect(isSuccess(95, getPreset("aeb"))).toBe(true);
    expect(isSuccess(99, getPreset("sage"))).toBe(false);
  });

  it("lets the emotion decide before the user and the clock", () => {
    const preset = getPreset("aeb");
    expect(endReasonOf({ emotion: 96, turnsPlayed: 8, userLeft: true, preset })).toBe("success");
    expect(endReasonOf({ emotion: 10, turnsPlayed: 8, userLeft: true, preset })).toBe("collapse");
    expect(endReasonOf({ emotion: 50, turnsPlayed: 8, userLeft: true, preset })).toBe("user_left");
    expect(endReasonOf({ emotion: 50, turnsPlayed: 8, userLeft: false, preset })).toBe("max_turns");
    expect(endReasonOf({ emotion: 50, turnsPlayed: 3, userLeft: false, preset })).toBeNull();
  });
});
