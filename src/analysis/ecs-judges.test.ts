import { describe, expect, it } from "vitest";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import { ecsRowOf, type DialogueRow } from "../metrics/dialogue-row.js";
import { classifyEcsJudges, ecsMetricName, isHeuristicEcsJudgeId, noModelJudgeNote } from "./ecs-judges.js";

const row = (entries: Record<string, unknown>): Pick<DialogueRow, "ecs"> => ({
  ecs: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, ecsRowOf(entry)])),
});

describe("ECS judge kinds", () => {
  it("knows the offline judge's id as a heuristic, and an LLM judge's as a model", () => {
    expect(isHeuristicEcsJudgeId(new OfflineEcsJudge().id)).toBe(true);
    expect(isHeuristicEcsJudgeId("llm-ecs:gemma-3-4b-it")).toBe(false);
  });

  it("decides by the judgements' ids, whatever the config named the judge", () => {
    const rows = [
      row({
        lexicon: { judge: "offline-lexicon", score: 0.8 },
        "offline-lexicon": { judge: "llm-ecs:mistral", model: "mistral", score: 0.6 },
      }),
    ];
    const kinds = classifyEcsJudges(rows, ["lexicon", "offline-lexicon"]);
    expect(kinds.headline).toBe("offline-lexicon");
    expect(kinds.heuristics.map((heuristic) => [heuristic.name, heuristic.id, heuristic.label])).toEqual([
      ["lexicon", "offline-lexicon", "ECS lexicon baseline"],
    ]);
    expect(ecsMetricName("offline-lexicon", kinds.headline)).toBe("ecs");
    expect(ecsMetricName("lexicon", kinds.headline)).toBe("ecs:lexicon");
  });

  it("counts a name as a model judge only when every judgement under it is a model's", () => {
    const rows = [row({ judge: { judge: "llm-ecs:x", score: 0.5 } }), row({ judge: { judge: "offline-lexicon", score: 0.7 } })];
    expect(classifyEcsJudges(rows, ["judge"])).toMatchObject({ headline: null, heuristics: [{ name: "judge" }] });
  });

  it("falls back on the name for a judge with no judgement, or a judgement without an id", () => {
    expect(classifyEcsJudges([], ["offline-lexicon", "cross-family"])).toMatchObject({
      headline: "cross-family",
      heuristics: [{ name: "offline-lexicon" }],
    });
    expect(classifyEcsJudges([row({ "offline-lexicon": { score: 0.7 } })], ["offline-lexicon"]).headline).toBeNull();
  });

  it("says why the headline is n/a only when heuristics ran and no model judge did", () => {
    expect(noModelJudgeNote(classifyEcsJudges([], ["offline-lexicon"]))).toMatch(
      /^ECS is n\/a \(no model judge\): offline-lexicon is the ECS lexicon baseline, which reads the user's messages only, not a model judge\./,
    );
    expect(noModelJudgeNote(classifyEcsJudges([], []))).toBeNull();
    expect(noModelJudgeNote(classifyEcsJudges([], ["offline-lexicon", "llm"]))).toBeNull();
  });
});
