import { describe, expect, it } from "vitest";
import { profileToScenario } from "../scenarios/sage-profiles.js";
import { ScenarioSchema, type Scenario } from "../scenarios/scenario-schema.js";
import { firstPersonSituation, loadOpeningLines, offlineOpening } from "./offline-opening.js";
import { OfflineSimulatedUser } from "./offline-user.js";
import { getPreset } from "../core/preset.js";

const profile = (fields: Record<string, unknown>): Scenario =>
  ScenarioSchema.parse(
    profileToScenario(
      {
        id: "p",
        player: "* 姓名：张伟\n* 性别：男性",
        scene: "张伟是一位侦探小说作家，性格严谨。\n然而，张伟最近和他的儿子小明闹翻了，他们已经一周没说话。",
        task: "你希望对方用心倾听",
        main_cha: "被动型",
        ...fields,
      } as never,
      "rlver",
    ),
  );

describe("the offline user's opening for a scenario without one", () => {
  it("tells the story's first event about the user, in the first person, skipping self-descriptions and a leading connective", () => {
    expect(firstPersonSituation(profile({}), "我")).toBe("我最近和我的儿子小明闹翻了，他们已经一周没说话");
  });

  it("frames it by the character type, with the dialogue's seed: the same seed gives the same opening", () => {
    const scenario = profile({});
    const frames = loadOpeningLines("zh").byTemperament["被动型"]!;
    const openings = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => offlineOpening(scenario, seed)));
    expect(openings.size).toBeGreaterThan(1);
    for (const opening of openings)
      expect(frames.map((frame) => frame.replace("{situation}", "我最近和我的儿子小明闹翻了，他们已经一周没说话"))).toContain(opening);
    expect(offlineOpening(scenario, 5)).toBe(offlineOpening(scenario, 5));
  });

  it("uses the default frames for another character, and a plain line when no sentence can be told", () => {
    expect(
      loadOpeningLines("zh").default.map((frame) => frame.replace("{situation}", "我最近和我的儿子小明闹翻了，他们已经一周没说话")),
    ).toContain(offlineOpening(profile({ main_cha: undefined }), 1));
    const storyless = profile({ scene: "## 剧本背景\n玩家与NPC的对话。" });
    expect(firstPersonSituation(storyless, "我")).toBeNull();
    expect(loadOpeningLines("zh").withoutSituation).toContain(offlineOpening(storyless, 1));
  });

  it("is what OfflineSimulatedUser.open writes", async () => {
    const scenario = profile({});
    expect(await new OfflineSimulatedUser().open({ scenario, preset: getPreset("rlver"), emotion: 30, seed: 4, dialogueId: "d" })).toBe(
      offlineOpening(scenario, 4),
    );
  });
});
