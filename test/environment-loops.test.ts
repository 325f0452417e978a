/**
 * The RL environment (in-process, src/server/environment.ts) plays the presets' loops as `aeb run`
 * does: a scenario without an opening is opened by the simulated user at reset, and under `sage`
 * the 10th reply is taken without appraisal and ends the episode.
 */
import { describe, expect, it } from "vitest";
import { profileToScenario } from "../src/scenarios/sage-profiles.js";
import { ScenarioSchema } from "../src/scenarios/scenario-schema.js";
import { Environment } from "../src/server/environment.js";
import { offlineOpening } from "../src/simulated-user/offline-opening.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { SimulatedUser } from "../src/simulated-user/simulated-user.js";

const PROFILE = {
  id: "p1",
  player: "* 姓名：李明\n* 性别：男性",
  scene: "李明最近和同事闹了矛盾，同事在会上当众批评了他，他一直咽不下这口气。",
  task: "你希望对方用心倾听你的情绪宣泄",
  main_cha: "负面型",
};
const withoutOpening = ScenarioSchema.parse(profileToScenario(PROFILE, "rlver"));
const withOpening = ScenarioSchema.parse(profileToScenario({ ...PROFILE, id: "p2", first_talk: "唉，最近上班真累。" }, "sage"));
const SECRET = "environment-loops-test-secret-0123456789";

/** Appraises every reply with no change and answers "嗯。": only the preset's loop decides. */
const flatUser: SimulatedUser = {
  id: "flat",
  appraise: async (input) => ({ simulatorDelta: 0, hid: "no", details: {}, memory: input.memory }),
  reply: async () => ({ text: "嗯。", left: false }),
};

describe("the environment plays the presets' loops", () => {
  it("opens a scenario without an opening with the simulated user's first message, and lists its opening as null", async () => {
    const environment = new Environment({ scenarios: [withoutOpening], user: new OfflineSimulatedUser(), secret: SECRET });
    expect(environment.listScenarios()[0]?.opening).toBeNull();
    const reset = await environment.reset({ scenarioId: withoutOpening.id, seed: 3 });
    expect(reset.preset).toBe("rlver");
    expect(reset.message).toBe(offlineOpening(withoutOpening, reset.episodeSeed));
    expect(reset.message).toMatch(/^(烦死了|说起来就来气|真是受够了)，我最近和同事闹了矛盾/u);
    expect(reset.messages).toEqual([{ role: "user", content: reset.message }]);
    const step = await environment.step({ token: reset.token, messages: reset.messages, reply: "听起来那次会上的批评让你很憋屈。" });
    expect(step.response.turnIndex).toBe(1);
  });

  it("refuses at start a scenario without an opening when the simulated user cannot write one", () => {
    expect(() => new Environment({ scenarios: [withoutOpening], user: flatUser, secret: SECRET })).toThrow(
      /has no opening line and simulated user "flat" cannot write one/,
    );
  });

  it("under sage, takes the 10th reply without appraisal: no answer, no change, the episode ends", async () => {
    const environment = new Environment({ scenarios: [withOpening], user: flatUser, secret: SECRET });
    const reset = await environment.reset({ scenarioId: withOpening.id, seed: 1, preset: "sage", rewardMode: "final" });
    expect(reset.maxTurns).toBe(10);
    let token = reset.token;
    const messages = [...reset.messages];
    for (let turn = 1; turn <= 10; turn += 1) {
      const reply = `回复${turn}`;
      const { response } = await environment.step({ token, messages, reply });
      messages.push({ role: "assistant", content: reply }, { role: "user", content: response.message });
      token = response.token;
      if (turn < 10) expect([response.done, response.message]).toEqual([false, "嗯。"]);
      else
        expect(response).toMatchObject({
          done: true,
          endReason: "max_turns",
          message: "",
          change: 0,
          simulatorChange: 0,
          emotion: 40,
          reward: 0.4,
          turnIndex: 10,
          adjustments: [],
          hid: null,
        });
    }
    const plus = await environment.reset({ scenarioId: withOpening.id, seed: 1, preset: "aeb-plus" });
    expect([plus.preset, plus.maxTurns, plus.emotion]).toEqual(["aeb-plus", 8, 50]);
  });
});
