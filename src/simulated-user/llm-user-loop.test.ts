/**
 * The LLM simulated user's part in each preset's loop: the change bound it enforces comes from the
 * preset (`simulatorChangeBound`), and it writes the opening of a scenario that has none.
 */
import { describe, expect, it } from "vitest";
import { scriptedChatModel } from "../testing/scripted-chat-model.js";
import { getPreset } from "../core/preset.js";
import type { ChatModel } from "../llm/chat-model.js";
import { profileToScenario } from "../scenarios/sage-profiles.js";
import { ScenarioSchema } from "../scenarios/scenario-schema.js";
import { changeRange, LlmSimulatedUser } from "./llm-user.js";
import type { AppraisalInput, OpeningInput } from "./simulated-user.js";

const scenario = ScenarioSchema.parse(
  profileToScenario(
    {
      id: "p1",
      player: "* 姓名：李明\n* 年龄：30岁",
      scene: "李明最近和同事闹了矛盾，同事在会上当众批评了他。",
      task: "你希望对方用心倾听你的情绪宣泄",
    },
    "rlver",
  ),
);
const appraisalInput = (preset: string): AppraisalInput => ({
  scenario,
  preset: getPreset(preset),
  history: [{ role: "user", content: "唉，最近上班真累。" }],
  agentReply: "听起来你很累。",
  turnIndex: 0,
  manipulationTurn: 0,
  emotion: getPreset(preset).start,
  memory: {},
  seed: 1,
  dialogueId: "d1",
});
const appraisal = (change: number | string) =>
  JSON.stringify({ understanding: "u", addressedHiddenIntention: "partial", innerReaction: "r", change, reasons: ["x"] });
// The project's JSON prompts (the `aeb-json` pack), whatever pack each preset would pick by default: the bound is the preset's.
const user = (model: ChatModel) => new LlmSimulatedUser(model, { fused: false, maxOutputRetries: 1, promptPack: "aeb-json" });

describe("the simulator's change bound comes from the preset", () => {
  it("rlver: no bound, as RLVER adds int(change) whatever it is", async () => {
    const model = scriptedChatModel([appraisal(85)]);
    expect((await user(model).appraise(appraisalInput("rlver"))).simulatorDelta).toBe(85);
    expect(model.calls).toHaveLength(1);
    // The project's JSON prompt states the whole scale when nothing bounds or clamps the change.
    expect(model.calls[0]!.messages[0]!.content).toContain("-100 到 100 之间的整数");
  });

  it("sage and aeb: taken as given and clamped by the preset afterwards, as SAGE's and the paper's parsers clamp", async () => {
    for (const preset of ["sage", "aeb"]) {
      const model = scriptedChatModel([appraisal(15)]);
      expect((await user(model).appraise(appraisalInput(preset))).simulatorDelta, preset).toBe(15);
      expect(model.calls[0]!.messages[0]!.content, preset).toContain("-10 到 10 之间的整数");
    }
  });

  it("aeb-plus: an answer outside +-10 is sent back, then an error; never clamped or defaulted", async () => {
    const model = scriptedChatModel([appraisal(15)]);
    await expect(user(model).appraise(appraisalInput("aeb-plus"))).rejects.toThrow(
      /appraisal output unusable after 2 tries: "change" must be an integer from -10 to 10, got 15/,
    );
    expect(model.calls).toHaveLength(2);
  });

  it("a change that is not an integer, or missing, is still an error under every preset", async () => {
    for (const preset of ["rlver", "sage"]) {
      await expect(user(scriptedChatModel([appraisal("a lot")])).appraise(appraisalInput(preset)), preset).rejects.toThrow(
        /unusable after 2 tries/,
      );
      await expect(user(scriptedChatModel([appraisal(2.5)])).appraise(appraisalInput(preset)), preset).rejects.toThrow(
        /unusable after 2 tries/,
      );
      await expect(
        user(scriptedChatModel([JSON.stringify({ understanding: "u", addressedHiddenIntention: "no", innerReaction: "r" })])).appraise(
          appraisalInput(preset),
        ),
        preset,
      ).rejects.toThrow(/change/);
    }
  });

  it("states the range it enforces, else the clamp, else the whole scale", () => {
    expect(changeRange(getPreset("aeb-plus"))).toEqual({ bound: 10, min: -10, max: 10 });
    expect(changeRange(getPreset("sage"))).toEqual({ bound: null, min: -10, max: 10 });
    expect(changeRange(getPreset("rlver"))).toEqual({ bound: null, min: -100, max: 100 });
  });
});

describe("the opening of a scenario that has none", () => {
  const openingInput: OpeningInput = { scenario, preset: getPreset("rlver"), emotion: 30, seed: 9, dialogueId: "run/rlver-p1/0" };

  it("is written in persona from the scenario's own fields, at the start emotion, with the prompt in the scenario's language", async () => {
    const model = scriptedChatModel([JSON.stringify({ opening: " 唉，最近跟同事闹得挺僵的。 " })]);
    expect(await user(model).open(openingInput)).toBe("唉，最近跟同事闹得挺僵的。");
    const prompt = model.calls[0]!.messages[0]!.content;
    expect(prompt).toContain("姓名：李明");
    expect(prompt).toContain("同事在会上当众批评了他");
    expect(prompt).toContain("你希望对方用心倾听你的情绪宣泄");
    expect(prompt).toContain("30/100（状态 C");
    expect(model.calls[0]).toMatchObject({ sampleKey: "run/rlver-p1/0#opening#simulator-opening#try0" });
  });

  it("is asked for again when unusable, then an error naming the stage; never a stock line", async () => {
    const model = scriptedChatModel(["我最近……", JSON.stringify({ opening: "" })]);
    await expect(user(model).open(openingInput)).rejects.toThrow(/simulator opening output unusable after 2 tries/);
    expect(model.calls).toHaveLength(2);
  });
});
