import { describe, expect, it } from "vitest";
import { applyChange, emotionState, isCollapse, isSuccess } from "./emotion.js";
import { getPreset, maxAppraisedReplies, PresetSchema } from "./preset.js";

describe("presets: each source's loop (docs/fidelity.md)", () => {
  it("hold the sources' rules", () => {
    expect(getPreset("aeb")).toMatchObject({
      start: 50,
      clamp: 10,
      simulatorChangeBound: null,
      success: 95,
      failure: { op: "<=", value: 10 },
      maxTurns: 8,
      appraiseReplyAtLimit: true,
      endsOn: ["success", "collapse"],
      goodbyeWords: [],
    });
    expect(getPreset("aeb-plus")).toMatchObject({
      start: 50,
      clamp: 10,
      simulatorChangeBound: 10,
      maxTurns: 8,
      endsOn: ["success", "collapse", "user_left"],
      goodbyeWords: [],
    });
    expect(getPreset("sage")).toMatchObject({
      start: 40,
      clamp: 10,
      simulatorChangeBound: null,
      success: 100,
      failure: { op: "<", value: 10 },
      maxTurns: 10,
      appraiseReplyAtLimit: false,
      endsOn: ["success", "collapse", "user_left"],
      goodbyeWords: ["再见", "拜拜"],
    });
    expect(getPreset("rlver")).toMatchObject({
      start: 30,
      clamp: null,
      simulatorChangeBound: null,
      failure: { op: "<=", value: 0 },
      maxTurns: 9,
      appraiseReplyAtLimit: true,
      endsOn: ["collapse", "user_left"],
      goodbyeWords: ["再见", "拜拜"],
    });
  });

  it("count the replies each source appraises: the paper 8, SAGE 9 of 10, RLVER 9 (dialogue_turns > max_turns 8)", () => {
    expect(["aeb", "aeb-plus", "sage", "rlver"].map((name) => maxAppraisedReplies(getPreset(name)))).toEqual([8, 8, 9, 9]);
  });

  it("names the known presets when one is unknown", () => {
    expect(() => getPreset("nope")).toThrow(/unknown preset "nope" \(known: aeb, aeb-plus, sage, rlver\)/);
  });

  it("reject an end listed twice or out of order, and goodbye words without user_left", () => {
    const base = {
      description: "x",
      start: 50,
      clamp: 10,
      simulatorChangeBound: null,
      success: 95,
      failure: { op: "<=", value: 10 },
      maxTurns: 8,
      appraiseReplyAtLimit: true,
      endsOn: ["success", "collapse"],
      goodbyeWords: [],
    };
    expect(PresetSchema.safeParse(base).success).toBe(true);
    expect(PresetSchema.safeParse({ ...base, endsOn: ["collapse", "success"] }).error?.issues[0]?.message).toMatch(
      /in the order success, collapse, user_left/,
    );
    expect(PresetSchema.safeParse({ ...base, endsOn: ["success", "success"] }).success).toBe(false);
    expect(PresetSchema.safeParse({ ...base, goodbyeWords: ["bye"] }).error?.issues[0]?.message).toMatch(/only with user_left/);
    expect(PresetSchema.safeParse({ ...base, endsOn: ["quit"] }).success).toBe(false);
    expect(PresetSchema.safeParse({ ...base, appraiseReplyAtLimit: false, maxTurns: 1 }).success).toBe(false);
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

describe("states and thresholds", () => {
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
});
