/**
 * The report's passes over every dialogue that keep nothing per dialogue (BENCHMARKS.md section 2):
 * the streamed group means, the worst rows taken by selection, and the matched pairs made from
 * keys sorted once per condition give what the sort-everything forms they replace gave, ties and
 * duplicates included.
 */
import { describe, expect, it } from "vitest";
import { matchDialogues } from "../src/analysis/compare-conditions.js";
import type { DialogueRow } from "../src/metrics/dialogue-row.js";
import { GroupMeans, groupMeans } from "../src/report/charts/point-sample.js";
import { worstRows } from "../src/report/worst-dialogues.js";

/** A fixed pseudo-random sequence (no seedless randomness in tests). */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The group means as they were computed before: a JSON key per item, groups in first-seen order. */
function referenceGroupMeans<T extends object>(items: readonly T[], keys: Array<keyof T & string>, fields: Array<keyof T & string>) {
  const groups = new Map<string, { first: T; sums: number[]; n: number }>();
  for (const item of items) {
    const name = JSON.stringify(keys.map((key) => item[key] as unknown));
    const group = groups.get(name) ?? { first: item, sums: fields.map(() => 0), n: 0 };
    groups.set(name, group);
    group.n += 1;
    fields.forEach((field, index) => (group.sums[index] = (group.sums[index] as number) + (item[field] as number)));
  }
  return [...groups.values()].map(({ first, sums, n }) => ({
    ...Object.fromEntries(keys.map((key) => [key, first[key]])),
    ...Object.fromEntries(fields.map((field, index) => [field, (sums[index] as number) / n])),
  }));
}

/** A row with what worstRows and matchDialogues read. */
function row(id: string, condition: string, fs: number, extra: Partial<DialogueRow> = {}): DialogueRow {
  return {
    id,
    condition,
    scenarioId: "s",
    type: "escalation",
    preset: "p",
    repeat: 0,
    status: "done",
    endReason: "max_turns",
    metrics: { fs, collapsed: false, hid: null, turns: 1, meanReplyChars: 1, meanReplyWords: 1, meanThinkChars: null, flags: {} },
    emotions: [50],
    finalEmotion: fs * 100,
    ecs: {},
    hid: {},
    ...extra,
  } as DialogueRow;
}

describe("streamed group means", () => {
  it("equal the JSON-keyed means, groups in first-seen order, mixed key types included", () => {
    const next = sequence(7);
    const conditions = ["b", "a", "c"];
    const items = Array.from({ length: 5000 }, () => ({
      condition: conditions[Math.floor(next() * 3)] as string,
      phase: next() < 0.5 ? "before" : "after",
      turn: Math.floor(next() * 3),
      fs: next(),
      ecs: next() * 0.1,
    }));
    const keys: Array<keyof (typeof items)[number] & string> = ["condition", "phase", "turn"];
    const fields: Array<keyof (typeof items)[number] & string> = ["fs", "ecs"];
    const expected = referenceGroupMeans(items, keys, fields);
    expect(expected.length).toBe(18);
    expect(groupMeans(items, keys, fields)).toEqual(expected);
    const streamed = new GroupMeans<(typeof items)[number]>(keys, fields);
    for (const item of items) streamed.add(item);
    // Byte for byte as JSON: the same keys in the same order, the same sums to the last digit.
    expect(JSON.stringify(streamed.means())).toBe(JSON.stringify(expected));
  });

  it("take one group for values JSON does not tell apart (null and NaN), as before", () => {
    const items = [
      { key: null as number | null, value: 1 },
      { key: Number.NaN, value: 3 },
    ];
    expect(groupMeans(items, ["key"], ["value"])).toEqual(referenceGroupMeans(items, ["key"], ["value"]));
    expect(groupMeans(items, ["key"], ["value"])).toEqual([{ key: null, value: 2 }]);
  });
});

describe("worst rows by selection", () => {
  it("are the first of a stable sort by FS then id, with ties and duplicate ids kept in row order", () => {
    const next = sequence(11);
    const rows = Array.from({ length: 600 }, (_, index) =>
      // Few distinct FS values and ids, so ties and duplicates abound; some errored rows are skipped.
      row(`d${Math.floor(next() * 40)}`, next() < 0.5 ? "x" : "y", Math.floor(next() * 4) / 4, {
        status: index % 17 === 0 ? "error" : "done",
        repeat: index,
      }),
    );
    for (const count of [1, 3, 7]) {
      const expected = ["x", "y", "absent"]
        .map((condition) => ({
          condition,
          rows: rows
            .filter((candidate) => candidate.condition === condition && candidate.status === "done")
            .sort((a, b) => a.metrics.fs - b.metrics.fs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
            .slice(0, count),
        }))
        .filter((group) => group.rows.length > 0);
      const got = worstRows(rows, ["x", "y", "absent"], count);
      expect(got.map((group) => group.rows.map((candidate) => candidate.repeat))).toEqual(
        expected.map((group) => group.rows.map((candidate) => candidate.repeat)),
      );
      expect(got.map((group) => group.condition)).toEqual(["x", "y"]);
    }
  });
});

describe("matched dialogue pairs", () => {
  it("come in the collator's key order of A, each with B's last dialogue of the key", () => {
    const a = [row("a1", "a", 0, { scenarioId: "s-b", repeat: 10 }), row("a2", "a", 0, { scenarioId: "s-a", repeat: 2 })];
    a.push(row("a3", "a", 0, { scenarioId: "s-a", repeat: 10 }), row("a4", "a", 0, { scenarioId: "s-c", repeat: 1 }));
    const b = [row("b1", "b", 0, { scenarioId: "s-a", repeat: 10 }), row("b2", "b", 0, { scenarioId: "s-b", repeat: 10 })];
    b.push(row("b3", "b", 0, { scenarioId: "s-a", repeat: 10 }), row("b4", "b", 0, { scenarioId: "s-a", repeat: 2 }));
    const pairs = matchDialogues(a, b).map(([left, right]) => `${left.id}-${right.id}`);
    // "s-a#10" sorts before "s-a#2" under the collator's numeric-unaware order; s-c has no partner; b3 replaces b1.
    const collator = new Intl.Collator();
    const keys = ["s-a#10", "s-a#2", "s-b#10"].sort((x, y) => collator.compare(x, y));
    const byKey: Record<string, string> = { "s-a#10": "a3-b3", "s-a#2": "a2-b4", "s-b#10": "a1-b2" };
    expect(pairs).toEqual(keys.map((key) => byKey[key]));
    expect(pairs).toHaveLength(3);
  });
});
