import { describe, expect, it } from "vitest";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { DialogueRowStore } from "./dialogue-row-store.js";

/** A row with every optional part present: error, token counts, flags, two ECS judges (one with nulls), an HID judge. */
function fullRow(): DialogueRow {
  return {
    id: "attuned/escalation-1/3",
    condition: "attuned",
    scenarioId: "escalation-1",
    type: "escalation",
    preset: "aeb",
    repeat: 3,
    status: "error",
    endReason: "error",
    error: { kind: "timeout", stage: "agent", message: "the agent did not answer in 30 s", retryable: true },
    metrics: {
      fs: 0.37,
      collapsed: false,
      hid: 0.5,
      turns: 4,
      meanReplyChars: 120.25,
      meanReplyWords: 21.5,
      meanReplyTokens: 30.75,
      meanThinkChars: 17,
      flags: { zeta: 2, alpha: 1 },
    },
    emotions: [50, 45.5, 60, 37],
    finalEmotion: 37,
    ecs: {
      model: { judge: "llm-ecs:m", score: 0.8, before: 0.9, after: 0.7, drop: 0.2, errors: 1, imputed: 1, unreadableTurn: "impute-50" },
      lexicon: { judge: null, score: null, before: null, after: null, drop: null, errors: 0, imputed: 0, unreadableTurn: null },
      other: {
        judge: "offline-lexicon",
        score: 0.1,
        before: null,
        after: null,
        drop: null,
        errors: 2,
        imputed: 0,
        unreadableTurn: "exclude",
      },
    },
    hid: { h1: { value: 1, error: false }, h2: { value: null, error: true } },
  };
}

/** A row with every optional part absent or null. */
function bareRow(id: string): DialogueRow {
  return {
    id,
    condition: "formulaic",
    scenarioId: "gaslighting-2",
    type: "gaslighting",
    preset: "sage",
    repeat: 0,
    status: "done",
    endReason: "collapse",
    metrics: { fs: 0, collapsed: true, hid: null, turns: 0, meanReplyChars: 0, meanReplyWords: 0, meanThinkChars: null, flags: {} },
    emotions: [50],
    finalEmotion: 0,
    ecs: {},
    hid: {},
  };
}

describe("DialogueRowStore", () => {
  it("gives back every row equal to the one added, field for field and key order included", () => {
    const store = new DialogueRowStore();
    const rows = [fullRow(), bareRow("formulaic/gaslighting-2/0"), fullRow()];
    const stored = rows.map((row) => store.add(row));
    expect(store.size).toBe(3);
    stored.forEach((row, index) => {
      const given = rows[index] as DialogueRow;
      expect(row.plain()).toStrictEqual(given);
      expect(JSON.stringify(row)).toBe(JSON.stringify(given));
      expect(Object.keys(row.ecs)).toEqual(Object.keys(given.ecs));
      expect(Object.keys(row.metrics.flags)).toEqual(["zeta", "alpha"].filter((flag) => flag in given.metrics.flags));
      expect(row.id).toBe(given.id);
      expect(row.condition).toBe(given.condition);
      expect(row.repeat).toBe(given.repeat);
      expect(row.error).toStrictEqual(given.error);
      expect(row.emotions).toEqual(given.emotions);
      expect(JSON.parse(JSON.stringify(row.metrics))).toStrictEqual(given.metrics);
      expect(row.metrics.fs).toBe(given.metrics.fs);
      expect(row.metrics.hid).toBe(given.metrics.hid);
      expect(row.metrics.meanReplyTokens).toBe(given.metrics.meanReplyTokens);
      expect(row.metrics.meanThinkChars).toBe(given.metrics.meanThinkChars);
      expect(row.metrics.collapsed).toBe(given.metrics.collapsed);
      expect(row.metrics.flags).toStrictEqual(given.metrics.flags);
    });
    // An absent optional field stays absent, not undefined-valued.
    expect("meanReplyTokens" in (stored[1]?.plain().metrics ?? {})).toBe(false);
    expect("error" in (stored[1]?.plain() ?? {})).toBe(false);
  });

  it("keeps the rows apart across the growth of its columns (more rows than the first capacity)", () => {
    const store = new DialogueRowStore();
    const stored = [];
    for (let index = 0; index < 5000; index += 1) {
      const row = bareRow(`formulaic/gaslighting-2/${index}`);
      row.repeat = index;
      row.emotions = Array.from({ length: 1 + (index % 7) }, (_, step) => (index + step) % 101);
      row.metrics.flags = index % 3 === 0 ? { [`flag${index % 5}`]: index } : {};
      row.ecs = index % 2 === 0 ? { offline: { ...(fullRow().ecs.model as DialogueRow["ecs"][string]), score: index / 5000 } } : {};
      stored.push({ given: row, stored: store.add(row) });
    }
    for (const { given, stored: row } of stored) expect(row.plain()).toStrictEqual(given);
  });

  it("keeps a row holding NaN as it was given (NaN would read back as null)", () => {
    const store = new DialogueRowStore();
    const row = bareRow("x/y/0");
    row.metrics.fs = Number.NaN;
    row.metrics.hid = null;
    const stored = store.add(row);
    expect(stored.metrics.fs).toBeNaN();
    expect(stored.metrics.hid).toBeNull();
    expect(stored.plain()).toBe(row);
    // The rows after it are stored in the columns again.
    const next = store.add(fullRow());
    expect(next.plain()).toStrictEqual(fullRow());
  });
});
