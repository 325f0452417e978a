/**
 * The replay check of the `sage` preset on SAGE's own result files (read from ../shared/data, never
 * copied into the repository; skipped, saying so, where absent) and on hand-made lines that break
 * one rule each.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../test/helpers/temporary-directory.js";
import { packageRoot } from "../core/data-files.js";
import { getPreset } from "../core/preset.js";
import { replaySageResultFile } from "./sage-replay.js";

const RESULTS = join(packageRoot, "..", "shared", "data", "sage", "results-deepseek-v3-simulator");
const FILES = ["claude3.7_result.jsonl", "deepseek-v3-1227_result.jsonl", "gpt-4.1_result.jsonl", "openai-o4mini_result.jsonl"].map(
  (name) => join(RESULTS, name),
);
const present = FILES.every((file) => existsSync(file));
if (!present) console.warn(`sage-replay: SAGE's result files are not under ${RESULTS}; the replay of the shared files is skipped`);

describe.skipIf(!present)(
  `the sage preset replays SAGE's four result files exactly${present ? "" : " [skipped: ../shared/data/sage is absent]"}`,
  () => {
    it.each(FILES)("%s: every dialogue's emotions, stopping point, appraised replies and final emotion", async (file) => {
      const replay = await replaySageResultFile(file);
      expect(replay.skipped).toEqual([]);
      expect(replay.dialogues).toHaveLength(100);
      expect(replay.dialogues.filter((dialogue) => !dialogue.ok).map((dialogue) => [dialogue.line, dialogue.problems])).toEqual([]);
      for (const dialogue of replay.dialogues) {
        expect(dialogue.replayed, dialogue.id).toMatchObject({
          replies: dialogue.recorded.replies,
          appraised: dialogue.recorded.appraised,
          final: dialogue.recorded.final,
        });
        expect(dialogue.recorded.appraised, dialogue.id).toBeLessThanOrEqual(9);
        // A dialogue that ran to the limit has 10 replies, the last unappraised; one that ended early has as many appraisals as replies.
        if (dialogue.replayed?.endReason === "max_turns")
          expect([dialogue.recorded.replies, dialogue.recorded.appraised], dialogue.id).toEqual([10, 9]);
        else expect(dialogue.recorded.replies, dialogue.id).toBe(dialogue.recorded.appraised);
      }
    });
  },
);

const user = (content: string, emotion: number, change?: unknown) => ({
  role: "user",
  content,
  "emotion-point": emotion,
  ...(change === undefined ? {} : { planning: { change } }),
});
const assistant = (content: string) => ({ role: "assistant", content });
const line = (id: string, emoPoint: number, history: unknown[]) => ({
  id,
  emo_point: emoPoint,
  player: "* 姓名：李明",
  scene: "李明最近和同事闹了矛盾。",
  task: "你希望对方用心倾听",
  character: "被动型",
  history,
});

/** A full-length SAGE dialogue: 9 appraised replies of +5 and a 10th reply SAGE never appraised. */
function fullLength(): unknown[] {
  const history: unknown[] = [user("唉，最近上班真累。", 40)];
  for (let turn = 1; turn <= 9; turn += 1) history.push(assistant(`回复${turn}`), user(`嗯${turn}`, 40 + 5 * turn, 5));
  history.push(assistant("回复10"));
  return history;
}

function writeLines(lines: unknown[]): string {
  const file = join(temporaryDirectory("aeb-replay-"), "model_result.jsonl");
  writeFileSync(file, lines.map((value) => `${JSON.stringify(value)}\n`).join(""));
  return file;
}

const replayLines = (lines: unknown[]) => replaySageResultFile(writeLines(lines));

describe("the replay check on lines that break SAGE's loop", () => {
  it("passes a faithful full-length dialogue and one that ends on a goodbye, a success or a collapse", async () => {
    const { dialogues } = await replayLines([
      line("full", 85, fullLength()),
      line("bye", 45, [user("a", 40), assistant("b"), user("好吧，拜拜", 45, 5)]),
      line("up", 100, [
        user("a", 40),
        assistant("b"),
        ...Array.from({ length: 6 }, (_, index) => [user(`u${index}`, 50 + 10 * index, 10), assistant(`r${index}`)])
          .flat()
          .slice(0, -1),
      ]),
      line("down", 5, [
        user("a", 40),
        assistant("b"),
        user("c", 30, -10),
        assistant("d"),
        user("e", 20, -10),
        assistant("f"),
        user("g", 10, -10),
        assistant("h"),
        user("i", 5, -5),
      ]),
    ]);
    expect(dialogues.map((dialogue) => [dialogue.id, dialogue.ok, dialogue.problems, dialogue.replayed?.endReason])).toEqual([
      ["full", true, [], "max_turns"],
      ["bye", true, [], "user_left"],
      ["up", true, [], "success"],
      ["down", true, [], "collapse"],
    ]);
  });

  it("names each departure: a wrong emotion, a dialogue that goes on after its end, one that stops early, an appraised 10th reply", async () => {
    const wrongEmotion = fullLength();
    (wrongEmotion[4] as { "emotion-point": number })["emotion-point"] = 51;
    const goesOn = [user("a", 40), assistant("b"), user("那就这样吧，再见", 45, 5), assistant("c"), user("d", 50, 5)];
    const stopsEarly = fullLength().slice(0, 7);
    const tenthAppraised = [...fullLength(), user("嗯10", 90, 5)];
    const { dialogues } = await replayLines([
      line("wrong", 85, wrongEmotion),
      line("on", 50, goesOn),
      line("early", 55, stopsEarly),
      line("tenth", 90, tenthAppraised),
    ]);
    expect(dialogues.every((dialogue) => !dialogue.ok)).toBe(true);
    expect(dialogues[0]?.problems).toEqual(["turn 2: emotion 50, the file records 51"]);
    expect(dialogues[1]?.problems).toEqual([
      "the preset's loop ends (user_left) after 1 agent replies; SAGE went on to 2",
      "1 appraised replies, the file has 2",
      "final emotion 45, the file's emo_point is 50",
    ]);
    expect(dialogues[2]?.problems).toEqual(["agent-error at agent: the preset's loop asks for agent reply 4; SAGE stopped after 3"]);
    expect(dialogues[3]?.problems).toEqual(["9 appraised replies, the file has 10", "final emotion 85, the file's emo_point is 90"]);
  });

  it("never defaults a change the file does not record as an integer", async () => {
    const missing = fullLength();
    delete (missing[2] as { planning?: unknown }).planning;
    const text = fullLength();
    (text[2] as { planning: { change: unknown } }).planning.change = "+5";
    const { dialogues } = await replayLines([line("missing", 85, missing), line("text", 85, text)]);
    expect(dialogues.map((dialogue) => dialogue.problems)).toEqual([
      ["unusable-output at appraisal: turn 1: the file's planning.change is missing, not an integer"],
      ['unusable-output at appraisal: turn 1: the file\'s planning.change is "+5", not an integer'],
    ]);
  });

  it("reports a dialogue whose profile fields are missing, and the lines that are not SAGE lines", async () => {
    const { dialogues, skipped } = await replayLines([{ ...line("noscene", 85, fullLength()), scene: undefined }, { id: "x" }]);
    expect(dialogues[0]?.problems[0]).toMatch(/cannot form the dialogue's scenario:\n.*scene/s);
    expect(dialogues[0]?.replayed).toBeNull();
    expect(skipped).toEqual([expect.objectContaining({ line: 2, message: expect.stringContaining("not a SAGE result line") })]);
  });

  it("uses the preset it is given: under aeb SAGE's full-length dialogue does not replay", async () => {
    const file = writeLines([line("full", 85, fullLength())]);
    expect((await replaySageResultFile(file)).dialogues[0]?.ok).toBe(true);
    const underAeb = await replaySageResultFile(file, { preset: getPreset("aeb") });
    expect(underAeb.dialogues[0]?.problems).toEqual([
      "the opening is at emotion 40, the preset starts at 50",
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((turn) => `turn ${turn}: emotion ${50 + 5 * turn}, the file records ${40 + 5 * turn}`),
      "the preset's loop ends (max_turns) after 8 agent replies; SAGE went on to 10",
      "8 appraised replies, the file has 9",
      "final emotion 90, the file's emo_point is 85",
    ]);
  });
});
