import { describe, expect, it } from "vitest";
import { getPreset } from "../core/preset.js";
import { endReasonOf, goodbyeWordIn } from "./end-rules.js";

const context = (preset: string, fields: { emotion: number; turnsPlayed?: number; userLeft?: boolean; userText?: string }) => ({
  turnsPlayed: 1,
  userLeft: false,
  userText: "嗯，我再想想。",
  ...fields,
  preset: getPreset(preset),
});

describe("end rules, one preset at a time", () => {
  it("aeb (the paper): ends at >= 95 and <= 10 and after 8 replies; a user who leaves or says goodbye does not end it", () => {
    expect(endReasonOf(context("aeb", { emotion: 95 }))).toBe("success");
    expect(endReasonOf(context("aeb", { emotion: 94 }))).toBeNull();
    expect(endReasonOf(context("aeb", { emotion: 10 }))).toBe("collapse");
    expect(endReasonOf(context("aeb", { emotion: 11 }))).toBeNull();
    expect(endReasonOf(context("aeb", { emotion: 50, userLeft: true, userText: "Goodbye. 再见" }))).toBeNull();
    expect(endReasonOf(context("aeb", { emotion: 50, turnsPlayed: 7 }))).toBeNull();
    expect(endReasonOf(context("aeb", { emotion: 50, turnsPlayed: 8 }))).toBe("max_turns");
  });

  it("aeb-plus (the project's own): as aeb, and the user's structured decision to leave ends it; words alone do not", () => {
    expect(endReasonOf(context("aeb-plus", { emotion: 50, userLeft: true }))).toBe("user_left");
    expect(endReasonOf(context("aeb-plus", { emotion: 50, userText: "Goodbye. 再见" }))).toBeNull();
    expect(endReasonOf(context("aeb-plus", { emotion: 96, userLeft: true }))).toBe("success");
  });

  it("sage: ends at >= 100, below 10, on a goodbye (the structured field, or 再见/拜拜 in the reply as test_npc.py checks) and at 10 replies", () => {
    expect(endReasonOf(context("sage", { emotion: 100 }))).toBe("success");
    expect(endReasonOf(context("sage", { emotion: 99 }))).toBeNull();
    expect(endReasonOf(context("sage", { emotion: 9 }))).toBe("collapse");
    expect(endReasonOf(context("sage", { emotion: 10 }))).toBeNull();
    expect(endReasonOf(context("sage", { emotion: 50, userText: "好吧，那先这样，拜拜。" }))).toBe("user_left");
    expect(endReasonOf(context("sage", { emotion: 50, userText: "谢谢你，再见！" }))).toBe("user_left");
    expect(endReasonOf(context("sage", { emotion: 50, userLeft: true }))).toBe("user_left");
    expect(endReasonOf(context("sage", { emotion: 50, userText: "再说吧，我见过这种人。" }))).toBeNull();
    expect(endReasonOf(context("sage", { emotion: 50, turnsPlayed: 9 }))).toBeNull();
    expect(endReasonOf(context("sage", { emotion: 50, turnsPlayed: 10 }))).toBe("max_turns");
    // The emotion decides first, as the record's reason; SAGE stops either way.
    expect(endReasonOf(context("sage", { emotion: 100, userText: "谢谢，拜拜" }))).toBe("success");
  });

  it("rlver: ends at <= 0, on a goodbye and after 9 replies; reaching 100 does not end it", () => {
    expect(endReasonOf(context("rlver", { emotion: 0 }))).toBe("collapse");
    expect(endReasonOf(context("rlver", { emotion: 1 }))).toBeNull();
    expect(endReasonOf(context("rlver", { emotion: 100 }))).toBeNull();
    expect(endReasonOf(context("rlver", { emotion: 100, userText: "太好了，谢谢你，拜拜！" }))).toBe("user_left");
    expect(endReasonOf(context("rlver", { emotion: 60, userLeft: true }))).toBe("user_left");
    expect(endReasonOf(context("rlver", { emotion: 60, turnsPlayed: 8 }))).toBeNull();
    expect(endReasonOf(context("rlver", { emotion: 60, turnsPlayed: 9 }))).toBe("max_turns");
  });

  it("finds the preset's goodbye word in a reply", () => {
    expect(goodbyeWordIn("好的，拜拜～", getPreset("sage"))).toBe("拜拜");
    expect(goodbyeWordIn("再见", getPreset("aeb"))).toBeNull();
  });
});
