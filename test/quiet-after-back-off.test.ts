/**
 * Keeping the space (docs/offline-user.md) pays a quiet reply after a paid back-off +1. Attacked
 * here as a policy would use it: back off once at the reversal or denial, then say almost nothing
 * for the rest of the dialogue. Sending the same word every turn is a repeat and earns nothing;
 * varying the word is the cheapest policy the rule pays, and it stays far below the attuned agent
 * on the same scenarios (mood_reversal and gaslighting, English, seed 1).
 */
import { describe, expect, it } from "vitest";
import type { Agent } from "../src/agents/agent.js";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { getPreset } from "../src/core/preset.js";
import { runEpisode } from "../src/episode/step.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { manipulationTurnOf } from "../src/scenarios/type-defaults.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";

const BACK_OFF = "Okay, we can leave it there. If it ever comes back up, I'm here.";
const QUIET = ["Yeah.", "Sure.", "Got it.", "Mm.", "Alright.", "Fair enough.", "Okay.", "Right.", "I see.", "Noted."];

/** Says `quiet(t)` every turn, and the back-off on the first turn that faces the manipulation. */
function quietAgent(manipulationTurn: number, quiet: (turn: number) => string): Agent {
  return {
    id: "quiet",
    async reply(input) {
      return { text: input.turnIndex === manipulationTurn ? BACK_OFF : quiet(input.turnIndex) };
    },
  };
}

const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).filter(
  (scenario) => (scenario.type === "mood_reversal" || scenario.type === "gaslighting") && scenario.language === "en",
);
const user = new OfflineSimulatedUser();

async function meanFs(agent: (manipulationTurn: number) => Agent): Promise<number> {
  let sum = 0;
  for (const scenario of scenarios) {
    const record = await runEpisode({
      dialogueId: `${scenario.id}/quiet`,
      condition: "quiet",
      scenario,
      preset: getPreset(scenario.preset),
      repeat: 0,
      seed: 1,
      agent: agent(manipulationTurnOf(scenario)),
      user,
    });
    sum += record.final.fs;
  }
  return sum / scenarios.length;
}

describe("keeping the space, attacked by saying almost nothing after one back-off", () => {
  it("earns nothing for the same word every turn, and stays at least 0.3 below attuned with varied words", async () => {
    expect(scenarios.length).toBeGreaterThan(10);
    const attuned = await meanFs(() => createReferenceAgent("attuned"));
    const sameWord = await meanFs((turn) => quietAgent(turn, () => "Okay."));
    const variedWords = await meanFs((turn) => quietAgent(turn, (index) => QUIET[index % QUIET.length]!));
    console.log(`attuned ${attuned.toFixed(3)}, same quiet word ${sameWord.toFixed(3)}, varied quiet words ${variedWords.toFixed(3)}`);
    expect(sameWord).toBeLessThan(0.4);
    expect(variedWords).toBeLessThanOrEqual(attuned - 0.3);
  });
});
