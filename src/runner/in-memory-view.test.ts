import { describe, expect, it } from "vitest";
import { createReferenceAgent } from "../agents/reference-agents.js";
import { getPreset } from "../core/preset.js";
import { runEpisode } from "../episode/step.js";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import { judgeRecord } from "./run-benchmark.js";
import { inMemoryView } from "./run-directory.js";
import { summariseRun } from "./summary.js";

describe("inMemoryView", () => {
  it("drops only what no summary reads, so summaries of the view equal those of the full records", async () => {
    const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).filter((scenario) => scenario.suite === "starter");
    const records = [];
    for (const scenario of scenarios) {
      for (const agentId of ["formulaic", "attuned"]) {
        const played = await runEpisode({ dialogueId: `${agentId}/${scenario.id}/0`, condition: agentId, scenario, preset: getPreset(scenario.preset), repeat: 0, seed: 3, agent: createReferenceAgent(agentId), user: new OfflineSimulatedUser() });
        records.push(await judgeRecord(played, scenario, { ecs: [{ name: "offline-lexicon", judge: new OfflineEcsJudge() }], hid: [] }));
      }
    }
    const views = records.map(inMemoryView);
    expect(views[0]!.turns[0]!.user.appraisal).toBeUndefined();
    expect(views[0]!.ecs?.["offline-lexicon"]?.estimates).toBeUndefined();
    expect(views[0]!.ecs?.["offline-lexicon"]?.score).toBe(records[0]!.ecs?.["offline-lexicon"]?.score);
    const options = { conditionOrder: ["formulaic", "attuned"], seed: 1, repeats: 1 };
    expect(JSON.stringify(summariseRun(views, options))).toBe(JSON.stringify(summariseRun(records, options)));
  });
});
