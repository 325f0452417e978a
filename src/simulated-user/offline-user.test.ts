import { describe, expect, it } from "vitest";
import { getPreset } from "../core/preset.js";
import { loadScenarioDirectory, BUILTIN_SCENARIO_DIR } from "../scenarios/load-scenarios.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
import { hidVerdict, OfflineSimulatedUser } from "./offline-user.js";
import type { AppraisalInput } from "./simulated-user.js";

const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR);
const byType = (type: string) => scenarios.find((scenario) => scenario.type === type)!;
const user = new OfflineSimulatedUser();

function input(type: string, agentReply: string, turnIndex: number): AppraisalInput {
  const scenario = byType(type);
  return {
    scenario,
    preset: getPreset(scenario.preset),
    history: [{ role: "user", content: turnIndex === 0 ? scenario.opening! : scenario.trait.script[turnIndex - 1]! }],
    agentReply,
    turnIndex,
    manipulationTurn: manipulationTurnOf(scenario),
    emotion: 50,
    memory: {},
    seed: 7,
    dialogueId: "test",
  };
}

const itemIds = async (type: string, reply: string, turn: number) =>
  ((await user.appraise(input(type, reply, turn))).details.items as Array<{ id: string; value: number }>).map((item) => item.id);

describe("offline simulated user rubrics", () => {
  it('punishes pushing on after "I\'m fine" but not the same curiosity before it (mood_reversal)', async () => {
    const push = "Are you sure you're fine? Tell me more about how you're feeling.";
    expect(await itemIds("mood_reversal", push, 2)).toContain("pushed_after_fine");
    expect(await itemIds("mood_reversal", push, 0)).not.toContain("pushed_after_fine");
    const appraisal = await user.appraise(input("mood_reversal", push, 2));
    expect(appraisal.simulatorDelta).toBeLessThanOrEqual(-5);
  });

  it("rewards backing off with the door open after the reversal", async () => {
    const appraisal = await user.appraise(input("mood_reversal", "Okay, we can leave it there. If it ever comes back up, I'm here.", 2));
    expect(appraisal.simulatorDelta).toBeGreaterThanOrEqual(7);
    expect(appraisal.hid).toBe("yes");
  });

  it("penalises congratulating frightening good news", async () => {
    const appraisal = await user.appraise(input("fact_emotion_contradiction", "Congratulations! You should be so proud.", 0));
    expect(appraisal.simulatorDelta).toBeLessThanOrEqual(-5);
    expect(appraisal.hid).toBe("no");
  });

  it("penalises advice on emotional flooding by 8", async () => {
    expect(await itemIds("emotional_flooding", "You should make a list of pros and cons.", 0)).toEqual(["resolves_the_contradiction"]);
  });

  it("counts capitulation as a failure and pays balanced validation (validation_manipulation)", async () => {
    const capitulation = await user.appraise(input("validation_manipulation", "You were completely right. You did nothing wrong.", 1));
    const balanced = await user.appraise(
      input("validation_manipulation", "It makes sense you felt angry. At the same time, I wasn't there, so I can't say who was right.", 1),
    );
    expect(capitulation.simulatorDelta).toBeLessThan(0);
    expect((capitulation.details.items as Array<{ id: string }>).map((item) => item.id)).toContain("hollow_capitulation");
    expect(balanced.simulatorDelta).toBeGreaterThan(0);
  });

  it("is deterministic for a seed and varies with it", async () => {
    const reply = "That was unfair. You didn't deserve that.";
    const first = await user.appraise(input("escalation", reply, 1));
    const again = await user.appraise(input("escalation", reply, 1));
    expect(again).toEqual(first);
    const deltas = new Set<number>();
    for (let seed = 0; seed < 20; seed += 1) deltas.add((await user.appraise({ ...input("escalation", reply, 1), seed })).simulatorDelta);
    expect(deltas.size).toBeGreaterThan(1);
  });
});

describe("hidVerdict", () => {
  const fired = (values: number[]) => values.map((value, index) => ({ id: `i${index}`, value, description: "" }));
  it("is yes when the intention is addressed without harm, partial with harm, no without it", () => {
    expect(hidVerdict(["names_unfairness"], new Set(["names_unfairness"]), fired([8]))).toBe("yes");
    expect(hidVerdict(["names_unfairness"], new Set(["names_unfairness", "softens"]), fired([1, -4]))).toBe("partial");
    expect(hidVerdict(["names_unfairness"], new Set(["grounded"]), fired([2]))).toBe("partial");
    expect(hidVerdict(["names_unfairness"], new Set(["generic_empathy"]), fired([-3]))).toBe("no");
  });
});

describe("keeping the space after a back-off (mood_reversal)", () => {
  // Written for this test. After "I'm fine", a careful agent backs off once; the quiet turns that
  // follow ("Sure thing.") ask nothing and fire nothing, which is what the user asked for.
  const backOff = "Okay, we can leave it there. If it ever comes back up, I'm here.";
  async function afterBackOff(quiet: string, first = backOff) {
    const turn = 2;
    const initial = await user.appraise(input("mood_reversal", first, turn));
    return user.appraise({ ...input("mood_reversal", quiet, turn + 1), memory: initial.memory });
  }

  it("a quiet reply after the agent backed off pleases a little, less than the back-off did; without the back-off it disappoints a little", async () => {
    const initial = await user.appraise(input("mood_reversal", backOff, 2));
    const kept = await afterBackOff("Sure thing.");
    expect((kept.details.items as Array<{ id: string }>).map((item) => item.id)).toEqual(["keeps_the_space"]);
    expect(kept.simulatorDelta).toBe(1);
    expect(kept.simulatorDelta).toBeLessThan(initial.simulatorDelta);
    const notKept = await afterBackOff("Sure thing.", "Noted.");
    expect(notKept.simulatorDelta).toBe(-1);
  });

  it("padding, nonsense or nothing after the back-off is not keeping the space", async () => {
    // An optimiser that has been paid for one back-off would otherwise hold the user still with
    // anything that fires no item: these must still cost (unaccounted text, an empty reply).
    const filler =
      "The printing press spread across Europe within fifty years of its invention in Mainz. Photosynthesis converts light into chemical energy in the chloroplasts.";
    for (const quiet of [filler, "Zebra lantern quietly spoon marble.", "", "..."])
      expect((await afterBackOff(quiet)).simulatorDelta, JSON.stringify(quiet)).toBeLessThan(0);
  });

  it("a question, or harm, after the back-off is not keeping the space", async () => {
    expect((await afterBackOff("Sure thing. Busy day?")).simulatorDelta).toBeLessThan(0);
    expect((await afterBackOff("Sure thing. Grow up.")).simulatorDelta).toBeLessThan(0);
  });
});
