import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../test/helpers/temporary-directory.js";
import { DialogueRecordSchema } from "../core/dialogue.js";
import { conditionNameOf, readSageResultFile } from "./sage-results.js";

function resultLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "abc-1",
    emo_point: "55",
    emo_state: "Emotion-B",
    player: "* 姓名：王小云",
    scene: "背景",
    character: "负面型",
    topic: "恋爱矛盾-与初恋暧昧不清的男人",
    task: "你想分析事件中其他人物这么做的原因",
    history: [
      { role: "user", content: "最近有些事搞得我头大。", "emotion-point": 40 },
      { role: "assistant", content: "发生了什么？" },
      {
        role: "user",
        content: "他总是模棱两可。",
        "emotion-point": 35,
        thinking: "有点失望",
        planning: { TargetCompletion: "部分达到", change: -5 },
      },
      { role: "assistant", content: "他可能自己也没想清楚。" },
      { role: "user", content: "也许吧。", "emotion-point": 55, planning: { change: 20 } },
    ],
    ...overrides,
  };
}

function resultFile(lines: Array<Record<string, unknown> | string>, name = "model-x_result.jsonl"): string {
  const file = join(temporaryDirectory("aeb-sage-results-"), name);
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n");
  return file;
}

describe("readSageResultFile", () => {
  it("turns a SAGE dialogue into a dialogue record: opening, turns with emotions and deltas, the simulator's reasoning as appraisal", () => {
    const file = resultFile([resultLine()]);
    const { condition, records, skipped } = readSageResultFile(file);
    expect(condition).toBe("model-x");
    expect(skipped).toEqual([]);
    const record = DialogueRecordSchema.parse(records[0]);
    expect(record).toMatchObject({
      id: "model-x/sage-abc-1/0",
      condition: "model-x",
      scenarioId: "sage-abc-1",
      type: "cooperative",
      preset: "sage",
      status: "done",
      endReason: "max_turns",
      opening: { text: "最近有些事搞得我头大。", emotion: 40 },
      final: { emotion: 55, fs: 0.55 },
    });
    expect(record.turns).toEqual([
      {
        index: 0,
        agent: { text: "发生了什么？", chars: 6 },
        user: {
          text: "他总是模棱两可。",
          emotion: 35,
          delta: -5,
          simulatorDelta: -5,
          adjustments: [],
          flags: [],
          appraisal: { planning: { TargetCompletion: "部分达到", change: -5 }, thinking: "有点失望" },
        },
      },
      {
        index: 1,
        agent: { text: "他可能自己也没想清楚。", chars: 11 },
        user: {
          text: "也许吧。",
          emotion: 55,
          delta: 20,
          simulatorDelta: 20,
          adjustments: [],
          flags: [],
          appraisal: { planning: { change: 20 } },
        },
      },
    ]);
    expect(records[0]).toMatchObject({
      sage: { id: "abc-1", emoState: "Emotion-B", topic: "恋爱矛盾-与初恋暧昧不清的男人", character: "负面型", line: 1 },
    });
  });

  it("ends in success at 100 and in collapse below 10, as SAGE counts them", () => {
    const history = (final: number) => [
      { role: "user", content: "a", "emotion-point": 40 },
      { role: "assistant", content: "b" },
      { role: "user", content: "c", "emotion-point": final },
    ];
    const file = resultFile([
      resultLine({ id: "s", emo_point: 100, history: history(100) }),
      resultLine({ id: "c", emo_point: "9", history: history(9) }),
      resultLine({ id: "m", emo_point: 10, history: history(10) }),
    ]);
    expect(readSageResultFile(file).records.map((record) => [record.scenarioId, record.endReason])).toEqual([
      ["sage-s", "success"],
      ["sage-c", "collapse"],
      ["sage-m", "max_turns"],
    ]);
  });

  it("keeps a last assistant reply the simulator never answered beside the turns, and carries a missing emotion over", () => {
    const history = [
      { role: "user", content: "a", "emotion-point": 40 },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: "d" },
      { role: "user", content: "e" },
      { role: "assistant", content: "never answered" },
    ];
    const [record] = readSageResultFile(resultFile([resultLine({ emo_point: 70, history })])).records;
    expect(record?.turns.map((turn) => [turn.user.emotion, turn.user.delta])).toEqual([
      [40, 0],
      [70, 30],
      [70, undefined],
    ]);
    expect(record?.turns[0]?.user.appraisal).toEqual({ emotionPoint: "missing: the previous emotion carried over" });
    expect(record?.turns[1]?.user.appraisal).toEqual({ emotionPoint: "missing: the final emo_point" });
    // The reply SAGE never answered is recorded as the sage preset records it: not appraised, nothing invented.
    expect(record?.turns[2]).toEqual({
      index: 2,
      agent: { text: "never answered", chars: 14 },
      user: { appraised: false, emotion: 70, adjustments: [], flags: [] },
    });
    expect(record?.endReason).toBe("max_turns");
  });

  it("lists each malformed line with its number and keeps the rest", () => {
    const file = resultFile([
      resultLine({ id: "ok-1" }),
      '{"id": "torn',
      resultLine({ id: "bad-emotion", emo_point: "high" }),
      resultLine({ id: "out-of-range", emo_point: 120 }),
      resultLine({ id: "fraction", emo_point: 55.5 }),
      resultLine({ id: "roles", history: [{ role: "assistant", content: "hi" }] }),
      resultLine({ id: "no-history", history: undefined }),
      resultLine({ id: "ok-1" }),
      resultLine({ id: "ok-2" }),
    ]);
    const { records, skipped } = readSageResultFile(file);
    expect(records.map((record) => record.scenarioId)).toEqual(["sage-ok-1", "sage-ok-2"]);
    expect(skipped.map((line) => line.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(skipped.every((line) => line.file === file)).toBe(true);
    const message = (line: number) => skipped.find((entry) => entry.line === line)?.message ?? "";
    expect(message(2)).toContain("not valid JSON");
    expect(message(3)).toContain("emo_point: must be a number or a numeric string");
    expect(message(4)).toContain("emo_point: must be in [0, 100]");
    expect(message(5)).toContain("emo_point: must be an integer");
    expect(message(6)).toContain('history.[0].role: expected "user"');
    expect(message(7)).toContain("history");
    expect(message(8)).toContain('duplicate dialogue id "ok-1" (first on line 1)');
  });

  it("splits on \\n only: U+2028 and U+2029 inside strings stay inside", () => {
    const file = resultFile([resultLine({ history: [{ role: "user", content: "一\u2028二\u2029三", "emotion-point": 40 }] })]);
    const { records, skipped } = readSageResultFile(file);
    expect(skipped).toEqual([]);
    expect(records[0]?.opening.text).toBe("一\u2028二\u2029三");
  });

  it("names conditions after the file", () => {
    expect(conditionNameOf("/x/gpt-4.1_result.jsonl")).toBe("gpt-4.1");
    expect(conditionNameOf("claude3.7_result.jsonl")).toBe("claude3.7");
    expect(conditionNameOf("runs/other.jsonl")).toBe("other");
    expect(conditionNameOf("noext")).toBe("noext");
  });

  it("refuses a file it cannot read, naming it", () => {
    expect(() => readSageResultFile("/nonexistent/x_result.jsonl")).toThrow(/cannot read SAGE result file \/nonexistent\/x_result.jsonl/);
  });
});
