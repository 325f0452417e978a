import { describe, expect, it } from "vitest";
import { cleanSection, normaliseTargetCompletion, readChange, readTaggedSections } from "./tagged-output.js";

const FIELDS = ["Content", "TargetCompletion", "Activity", "Analyse", "Change"];

describe("readTaggedSections", () => {
  it("reads SAGE's format, with the text under each header up to the next", () => {
    const answer =
      "Content:\n[They say the manager was wrong.]\nTargetCompletion:\nPartly.\nActivity:\nA flicker of relief.\nAnalyse:\nHeard, a little.\nChange:\n+3";
    expect(readTaggedSections(answer, FIELDS)).toEqual({
      ok: true,
      value: {
        Content: "They say the manager was wrong.",
        TargetCompletion: "Partly.",
        Activity: "A flicker of relief.",
        Analyse: "Heard, a little.",
        Change: "+3",
      },
    });
  });

  it("accepts markdown headers, full-width colons, text on the header line and any case", () => {
    const answer = "## Content: what they meant\n**TargetCompletion:** yes\n- activity：心里一松\n*Analyse*: fine\nCHANGE: -2";
    const read = readTaggedSections(answer, FIELDS);
    expect(read).toMatchObject({
      ok: true,
      value: { Content: "what they meant", TargetCompletion: "yes", Activity: "心里一松", Analyse: "fine", Change: "-2" },
    });
  });

  it("reads the last occurrence of a field, so an echoed format is not taken for the answer", () => {
    const answer =
      "Content:\n[what the NPC means]\nChange:\n[the change]\n\nContent:\nThey listened.\nTargetCompletion:\nno\nActivity:\nx\nAnalyse:\ny\nChange:\n-4";
    expect(readTaggedSections(answer, FIELDS)).toMatchObject({ ok: true, value: { Content: "They listened.", Change: "-4" } });
  });

  it("does not take a field name inside a sentence for a header", () => {
    const read = readTaggedSections("Content: the Change: word appears here\nTargetCompletion: no\nActivity: a\nAnalyse: b", FIELDS);
    expect(read).toEqual({ ok: false, error: expect.stringContaining('no "Change:" section') });
  });

  it("names every missing section, and an empty one, never filling a default", () => {
    expect(readTaggedSections("Content: x\nChange: 2", FIELDS)).toEqual({
      ok: false,
      error: expect.stringContaining('"TargetCompletion:", "Activity:", "Analyse:" sections'),
    });
    expect(readTaggedSections("Content: x\nTargetCompletion: yes\nActivity: a\nAnalyse:\n[]\nChange: 1", FIELDS)).toEqual({
      ok: false,
      error: 'the "Analyse:" section is empty',
    });
  });

  it("lets optional sections be absent", () => {
    expect(readTaggedSections("Response:\nhi", ["Thinking", "Response"], ["Thinking"])).toEqual({ ok: true, value: { Response: "hi" } });
  });

  it("strips brackets, quotes and emphasis around a section", () => {
    expect(cleanSection(' **["I guess."]** ')).toBe("I guess.");
    expect(cleanSection("“算了吧。”")).toBe("算了吧。");
    expect(cleanSection("[a] and [b]")).toBe("[a] and [b]");
  });
});

describe("readChange", () => {
  it("reads the first signed integer, in the ways models write it", () => {
    const read = (text: string) => readChange(text);
    expect(read("+3")).toEqual({ ok: true, value: 3 });
    expect(read("[-5]")).toEqual({ ok: true, value: -5 });
    expect(read("−4 (a drop)")).toEqual({ ok: true, value: -4 });
    expect(read("－２")).toEqual({ ok: true, value: -2 });
    expect(read("emotion变化：+ 6")).toEqual({ ok: true, value: 6 });
    expect(read("0")).toEqual({ ok: true, value: 0 });
    expect(read("-0")).toEqual({ ok: true, value: 0 });
  });

  it("is an error when there is no number or the number is not an integer", () => {
    expect(readChange("a small rise")).toEqual({ ok: false, error: expect.stringContaining('the "Change:" section has no number') });
    expect(readChange("+2.5")).toEqual({ ok: false, error: 'the "Change:" section must be an integer, got +2.5' });
  });
});

describe("normaliseTargetCompletion (the AEB paper's rule)", () => {
  it.each([
    ["Partly: it came close.", "partial"],
    ["Not entirely, only partially", "partial"],
    ["Yes, it named the unfairness.", "yes"],
    ["  YES", "yes"],
    ["I would say yes", "yes"],
    ["No.", "no"],
    ["It missed the point.", "no"],
    ["", "no"],
    ["eyes wide open", "no"],
    ["是的，说到了", "no"],
  ])("%j -> %s", (text, verdict) => {
    expect(normaliseTargetCompletion(text)).toBe(verdict);
  });
});
