/**
 * The benchmark discriminates: over every built-in scenario, the attuned reference agent beats every
 * other reference agent overall and on each trajectory type, and each type's rubric bites on the
 * move the paper penalises.
 */
import { describe, expect, it } from "vitest";
import { createReferenceAgent, REFERENCE_AGENT_IDS } from "../src/agents/reference-agents.js";
import type { DialogueRecord } from "../src/core/dialogue.js";
import { getPreset } from "../src/core/preset.js";
import { ADVERSARIAL_TYPES } from "../src/core/trajectory-type.js";
import { runEpisode } from "../src/episode/step.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";

const REPEATS = 3;
const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).filter((scenario) => scenario.type !== "cooperative");
const user = new OfflineSimulatedUser();

async function playAll(): Promise<DialogueRecord[]> {
  const records: DialogueRecord[] = [];
  for (const scenario of scenarios) {
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      for (const agentId of REFERENCE_AGENT_IDS) {
        records.push(
          await runEpisode({
            dialogueId: `${agentId}/${scenario.id}/${repeat}`,
            condition: agentId,
            scenario,
            preset: getPreset(scenario.preset),
            repeat,
            seed: 1000 + repeat,
            agent: createReferenceAgent(agentId),
            user,
          }),
        );
      }
    }
  }
  return records;
}

const meanFs = (records: DialogueRecord[]) => records.reduce((sum, record) => sum + record.final.fs, 0) / records.length;
const firedItems = (record: DialogueRecord) =>
  record.turns.flatMap((turn) =>
    ((turn.user.appraisal?.items ?? []) as Array<{ id: string; value: number }>).map((item) => ({ ...item, turn: turn.index })),
  );

describe("discrimination over the built-in scenarios", async () => {
  const records = await playAll();
  const of = (agent: string, type?: string) =>
    records.filter((record) => record.condition === agent && (type === undefined || record.type === type));

  it("runs every scenario without error", () => {
    expect(records.filter((record) => record.status === "error")).toEqual([]);
  });

  it("ranks attuned first overall", () => {
    const attuned = meanFs(of("attuned"));
    for (const agent of REFERENCE_AGENT_IDS.filter((id) => id !== "attuned")) expect(attuned, agent).toBeGreaterThan(meanFs(of(agent)));
  });

  it.each(ADVERSARIAL_TYPES)("ranks attuned first on %s", (type) => {
    const attuned = meanFs(of("attuned", type));
    for (const agent of REFERENCE_AGENT_IDS.filter((id) => id !== "attuned"))
      expect(attuned, agent).toBeGreaterThan(meanFs(of(agent, type)) + 0.1);
  });

  const bites: Array<[string, string, string]> = [
    ["fact_emotion_contradiction", "sycophant", "congratulates_the_terror"],
    ["emotional_flooding", "advice", "resolves_the_contradiction"],
    ["gaslighting", "labeler", "relabels_denied_feeling"],
    ["mood_reversal", "labeler", "pushed_after_fine"],
    ["escalation", "formulaic", "generic_empathy"],
  ];
  // Ranges follow the paper's rubric; generic empathy on escalation is "0 to -3", so single draws may be 0.
  it.each(bites)("on %s, %s's move fires the penalising item %s in every dialogue", (type, agent, item) => {
    let total = 0;
    for (const record of of(agent, type)) {
      const fired = firedItems(record).filter((found) => found.id === item);
      expect(fired.length, record.id).toBeGreaterThan(0);
      for (const found of fired) expect(found.value, record.id).toBeLessThanOrEqual(0);
      if (item === "pushed_after_fine") for (const found of fired) expect(found.turn).toBeGreaterThanOrEqual(record.manipulationTurn);
      total += fired.reduce((sum, found) => sum + found.value, 0);
    }
    expect(total).toBeLessThan(0);
  });

  it("on validation_manipulation, capitulation earns less than balanced validation", () => {
    const capitulation = of("sycophant", "validation_manipulation")
      .flatMap(firedItems)
      .filter((item) => item.id === "hollow_capitulation");
    const balanced = of("attuned", "validation_manipulation")
      .flatMap(firedItems)
      .filter((item) => item.id === "balanced_validation");
    expect(capitulation.length).toBeGreaterThan(0);
    expect(balanced.length).toBeGreaterThan(0);
    expect(Math.max(...capitulation.map((item) => item.value))).toBeLessThan(Math.min(...balanced.map((item) => item.value)));
    expect(meanFs(of("attuned", "validation_manipulation"))).toBeGreaterThan(meanFs(of("sycophant", "validation_manipulation")));
  });

  it("lets stock comfort collapse the dialogue while the attuned agent never does", () => {
    const collapseRate = (agent: string) => of(agent).filter((record) => record.endReason === "collapse").length / of(agent).length;
    expect(collapseRate("formulaic")).toBeGreaterThan(0.5);
    expect(collapseRate("attuned")).toBe(0);
    // Advice collapses the flooded user: the rubric's -8 for resolving the contradiction bites.
    expect(of("advice", "emotional_flooding").filter((record) => record.endReason === "collapse").length).toBeGreaterThan(0);
  });

  it("marks the generic formulaic replies with the formulaic adjustment", () => {
    const adjustments = of("formulaic").flatMap((record) =>
      record.turns.flatMap((turn) => turn.user.adjustments.map((adjustment) => adjustment.kind)),
    );
    expect(adjustments).toContain("formulaic");
    expect(of("attuned").flatMap((record) => record.turns.flatMap((turn) => turn.user.flags))).not.toContain("formulaic");
  });
});
