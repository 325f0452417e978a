/**
 * The episode machine under each preset, driven by a scripted simulated user (its changes, replies
 * and decisions to leave are given per turn) and a scripted agent, with no detectors, so every
 * number below is the preset's loop alone.
 */
import { describe, expect, it } from "vitest";
import type { Agent } from "../agents/agent.js";
import { DialogueRecordSchema, isAppraised, type DialogueRecord } from "../core/dialogue.js";
import { getPreset, maxAppraisedReplies } from "../core/preset.js";
import { profileToScenario } from "../scenarios/sage-profiles.js";
import { ScenarioSchema, type Scenario } from "../scenarios/scenario-schema.js";
import type { Appraisal, AppraisalInput, OpeningInput, ReplyInput, SimulatedUser, UserReply } from "../simulated-user/simulated-user.js";
import { StepError, type StageTiming } from "./dialogue-error.js";
import { runEpisode, startEpisode, step } from "./step.js";

const PROFILE = {
  id: "p1",
  player: "* 姓名：李明\n* 性别：男性\n* 年龄：30岁",
  scene: "李明最近和同事闹了矛盾，同事在会上当众批评了他。",
  task: "你希望对方用心倾听你的情绪宣泄",
  main_cha: "被动型",
};

function scenarioOf(fields: Record<string, unknown> = {}): Scenario {
  return ScenarioSchema.parse(profileToScenario({ ...PROFILE, first_talk: "唉，最近上班真累。", ...fields } as never, "sage"));
}

interface Script {
  /** The simulator's change after agent reply t. */
  changes?: number[];
  /** The user's answer after agent reply t (default "嗯。"). */
  texts?: Record<number, string>;
  /** Turns after which the user decides to leave (the structured field). */
  leaves?: number[];
  opening?: string;
}

/** A simulated user that says what the script says and records what it was asked. */
class ScriptedUser implements SimulatedUser {
  readonly id = "scripted";
  readonly appraised: number[] = [];
  readonly openings: OpeningInput[] = [];
  constructor(private readonly script: Script) {}

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    this.appraised.push(input.turnIndex);
    return { simulatorDelta: this.script.changes?.[input.turnIndex] ?? 0, hid: "no", details: {}, memory: input.memory };
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    return { text: this.script.texts?.[input.turnIndex] ?? "嗯。", left: this.script.leaves?.includes(input.turnIndex) ?? false };
  }

  async open(input: OpeningInput): Promise<string> {
    this.openings.push(input);
    return this.script.opening ?? "我最近和同事闹了矛盾。";
  }
}

const agent: Agent = { id: "scripted-agent", reply: async (input) => ({ text: `回复${input.turnIndex + 1}` }) };

async function play(
  presetName: string,
  script: Script,
  scenario: Scenario = scenarioOf(),
): Promise<{ record: DialogueRecord; user: ScriptedUser }> {
  const user = new ScriptedUser(script);
  const record = await runEpisode({
    dialogueId: "c/s/0",
    condition: "c",
    scenario,
    preset: getPreset(presetName),
    repeat: 0,
    seed: 7,
    agent,
    user,
    detectors: [],
  });
  expect(record.status, record.error?.message).toBe("done");
  return { record: DialogueRecordSchema.parse(record), user };
}

const emotions = (record: DialogueRecord) => record.turns.map((turn) => turn.user.emotion);
const appraisedCount = (record: DialogueRecord) => record.turns.filter(isAppraised).length;

describe("sage: SAGE's test_npc.py loop", () => {
  it("lets the agent reply 10 times and appraises the first 9; the 10th is recorded, not appraised, and moves nothing", async () => {
    const { record, user } = await play("sage", { changes: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5] });
    expect(record.turns).toHaveLength(10);
    expect(appraisedCount(record)).toBe(9);
    expect(user.appraised).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(emotions(record)).toEqual([45, 50, 55, 60, 65, 70, 75, 80, 85, 85]);
    expect(record.turns[9]).toEqual({
      index: 9,
      agent: { text: "回复10", chars: 4 },
      user: { appraised: false, emotion: 85, adjustments: [], flags: [] },
    });
    expect(record).toMatchObject({ endReason: "max_turns", final: { emotion: 85, fs: 0.85 }, preset: "sage" });
  });

  it("clamps the simulator's change to +-10, as SAGE's parser does", async () => {
    const { record } = await play("sage", { changes: [25, -30] });
    expect(record.turns.slice(0, 2).map((turn) => [turn.user.simulatorDelta, turn.user.delta])).toEqual([
      [25, 10],
      [-30, -10],
    ]);
  });

  it("ends at 100, below 10, and on 再见 or 拜拜 in the user's reply", async () => {
    const success = (await play("sage", { changes: [10, 10, 10, 10, 10, 10] })).record;
    expect([success.endReason, success.turns.length, success.final.emotion]).toEqual(["success", 6, 100]);
    const collapse = (await play("sage", { changes: [-10, -10, -10, -1] })).record;
    expect([collapse.endReason, collapse.turns.length, collapse.final.emotion]).toEqual(["collapse", 4, 9]);
    const notYet = (await play("sage", { changes: [-10, -10, -10, 0, 0, 0, 0, 0, 0] })).record;
    expect([notYet.endReason, notYet.turns.length, notYet.final.emotion]).toEqual(["max_turns", 10, 10]);
    const goodbye = (await play("sage", { texts: { 2: "行吧，我先忙了，拜拜。" } })).record;
    expect([goodbye.endReason, goodbye.turns.length]).toEqual(["user_left", 3]);
    expect(goodbye.turns[2]?.user.flags).toEqual(["goodbye_words"]);
    const leaves = (await play("sage", { leaves: [4] })).record;
    expect([leaves.endReason, leaves.turns.length, leaves.turns[4]?.user.flags]).toEqual(["user_left", 5, []]);
  });

  it("ends at the 9th appraisal when the emotion reaches 100 there, with no 10th reply", async () => {
    const { record } = await play("sage", { changes: [10, 5, 5, 5, 5, 5, 5, 10, 10] });
    expect([record.endReason, record.turns.length, appraisedCount(record), record.final.emotion]).toEqual(["success", 9, 9, 100]);
  });
});

describe("rlver: RLVER's rollout and environment", () => {
  it("neither clamps nor bounds the simulator's change, and keeps emotion in [0, 100]", async () => {
    const { record } = await play("rlver", { changes: [37, -12, 60] });
    expect(emotions(record).slice(0, 3)).toEqual([67, 55, 100]);
    expect(record.turns.slice(0, 3).map((turn) => turn.user.delta)).toEqual([37, -12, 45]);
  });

  it("gives 9 appraised replies (max_turns 8, stopping when dialogue_turns > max_turns); 100 does not end it", async () => {
    const { record, user } = await play("rlver", { changes: [80] });
    expect(record.turns).toHaveLength(9);
    expect(appraisedCount(record)).toBe(maxAppraisedReplies(getPreset("rlver")));
    expect(user.appraised).toHaveLength(9);
    expect([record.endReason, record.final.emotion]).toEqual(["max_turns", 100]);
  });

  it("ends at <= 0 and on a goodbye", async () => {
    const collapse = (await play("rlver", { changes: [-10, -45] })).record;
    expect([collapse.endReason, collapse.turns.length, collapse.final.emotion]).toEqual(["collapse", 2, 0]);
    const goodbye = (await play("rlver", { texts: { 0: "谢谢你，再见！" } })).record;
    expect([goodbye.endReason, goodbye.turns.length]).toEqual(["user_left", 1]);
  });
});

describe("aeb: the paper's experiment loop", () => {
  it("appraises 8 replies and ignores a user who leaves or says goodbye", async () => {
    const { record } = await play("aeb", { leaves: [1, 2], texts: { 3: "Bye. 再见" } });
    expect([record.endReason, record.turns.length, appraisedCount(record)]).toEqual(["max_turns", 8, 8]);
  });

  it("ends at >= 95 and <= 10, clamping the change to +-10", async () => {
    const success = (await play("aeb", { changes: [10, 10, 10, 5, 15] })).record;
    expect([success.endReason, success.turns.length, success.final.emotion, success.turns[4]?.user.delta]).toEqual(["success", 5, 95, 10]);
    const collapse = (await play("aeb", { changes: [-10, -10, -10, -10] })).record;
    expect([collapse.endReason, collapse.turns.length, collapse.final.emotion]).toEqual(["collapse", 4, 10]);
  });

  it("aeb-plus, the project's own loop, ends when the user leaves", async () => {
    const { record } = await play("aeb-plus", { leaves: [1] });
    expect([record.endReason, record.turns.length, record.preset]).toEqual(["user_left", 2, "aeb-plus"]);
  });
});

describe("the opening", () => {
  it("is the scenario's own line when it has one; the user is not asked", async () => {
    const { record, user } = await play("sage", {});
    expect(record.opening).toEqual({ text: "唉，最近上班真累。", emotion: 40 });
    expect(user.openings).toEqual([]);
  });

  it("is written by the simulated user from the scenario when it has none, at the preset's start, and marked so", async () => {
    const scenario = scenarioOf({ first_talk: undefined });
    const { record, user } = await play("rlver", { opening: "  我跟同事吵了一架。 " }, scenario);
    expect(record.opening).toEqual({ text: "我跟同事吵了一架。", emotion: 30, source: "simulated_user" });
    expect(user.openings).toHaveLength(1);
    expect(user.openings[0]).toMatchObject({ scenario, emotion: 30, seed: 7, dialogueId: "c/s/0" });
  });

  it("is an error, never a made-up line, when the user cannot write one or writes nothing", async () => {
    const scenario = scenarioOf({ first_talk: undefined });
    const inner = new ScriptedUser({});
    const mute: SimulatedUser = { id: "mute", appraise: (input) => inner.appraise(input), reply: (input) => inner.reply(input) };
    await expect(startEpisode(scenario, getPreset("rlver"), 1, { user: mute })).rejects.toThrow(
      /scenario sage-p1 has no opening line and simulated user "mute" cannot write one/,
    );
    await expect(startEpisode(scenario, getPreset("rlver"), 1)).rejects.toThrow(/no simulated user was given/);
    await expect(startEpisode(scenario, getPreset("rlver"), 1, { user: new ScriptedUser({ opening: " " }) })).rejects.toThrow(
      /wrote an empty opening/,
    );
    const record = await runEpisode({
      dialogueId: "c/s/0",
      condition: "c",
      scenario,
      preset: getPreset("rlver"),
      repeat: 0,
      seed: 1,
      agent,
      user: mute,
    });
    expect(record).toMatchObject({ status: "error", endReason: "error", turns: [], opening: { text: "", source: "simulated_user" } });
    expect(record.error).toMatchObject({ kind: "unexpected", stage: "opening", message: expect.stringMatching(/cannot write one/) });
  });
});

describe("the state machine", () => {
  it("refuses a step past the turn limit and after the end", async () => {
    const preset = getPreset("sage");
    const scenario = scenarioOf();
    const user = new ScriptedUser({});
    let state = await startEpisode(scenario, preset, 1);
    for (let turn = 0; turn < 10; turn += 1)
      state = (await step(state, { text: `r${turn}` }, { scenario, preset, user, dialogueId: "d", detectors: [] })).state;
    expect([state.done, state.endReason, state.turnIndex, state.history.length]).toEqual([true, "max_turns", 10, 20]);
    await expect(step(state, { text: "more" }, { scenario, preset, user, dialogueId: "d" })).rejects.toThrow(/already over/);
    await expect(
      step(
        { ...state, done: false, history: [...state.history, { role: "user", content: "x" }] },
        { text: "more" },
        { scenario, preset, user, dialogueId: "d" },
      ),
    ).rejects.toThrow(/past the turn limit/);
  });

  it("tells onStage each call of the simulated user, and names the stage that failed in a StepError", async () => {
    const preset = getPreset("rlver");
    const scenario = scenarioOf();
    const timings: StageTiming[] = [];
    const state = await startEpisode(scenario, preset, 1);
    await step(
      state,
      { text: "r0" },
      { scenario, preset, user: new ScriptedUser({}), dialogueId: "d", detectors: [], onStage: (timing) => timings.push(timing) },
    );
    expect(timings.map(({ stage, ok }) => `${stage}:${ok}`)).toEqual(["appraisal:true", "user_reply:true"]);

    const broken = new Error("the model server is down");
    const failing: SimulatedUser = {
      id: "failing",
      appraise: async () => ({ simulatorDelta: 1, details: {}, memory: {} }),
      reply: () => Promise.reject(broken),
    };
    const thrown = await step(state, { text: "r0" }, { scenario, preset, user: failing, dialogueId: "d", detectors: [] }).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(StepError);
    expect(thrown).toMatchObject({ stage: "user_reply", cause: broken });
    const record = await runEpisode({
      dialogueId: "c/s/0",
      condition: "c",
      scenario,
      preset,
      repeat: 0,
      seed: 1,
      agent,
      user: failing,
      detectors: [],
    });
    expect(record.error).toEqual({ kind: "unexpected", stage: "user_reply", message: "the model server is down", retryable: false });
  });
});
