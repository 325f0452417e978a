import { getPreset, type Preset } from "../core/preset.js";
import { dialogueId } from "../core/dialogue.js";
import { deriveSeed } from "../core/random.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { ConditionConfig } from "./run-config.js";

/** One dialogue to play. */
export interface DialogueTask {
  id: string;
  condition: ConditionConfig;
  scenario: Scenario;
  preset: Preset;
  repeat: number;
  seed: number;
}

/**
 * Conditions x scenarios x repeats. The seed depends on the scenario and the repeat but not on the
 * condition, so every condition meets the same simulated-user randomness (common random numbers),
 * which sharpens scenario-matched comparisons.
 */
export function planRun(
  conditions: readonly ConditionConfig[],
  scenarios: readonly Scenario[],
  repeats: number,
  runSeed: number,
): DialogueTask[] {
  const tasks: DialogueTask[] = [];
  for (const scenario of scenarios) {
    const preset = getPreset(scenario.preset);
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      const seed = deriveSeed(runSeed, scenario.id, repeat);
      for (const condition of conditions) {
        tasks.push({ id: dialogueId(condition.name, scenario.id, repeat), condition, scenario, preset, repeat, seed });
      }
    }
  }
  return tasks;
}

/** How many dialogues a plan makes (computed without building it). */
export function plannedDialogueCount(conditions: number, scenarios: number, repeats: number): number {
  return conditions * scenarios * repeats;
}

export { dialogueId } from "../core/dialogue.js";
