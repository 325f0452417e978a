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
 * Conditions x scenarios x repeats, in that nesting (scenario, then repeat, then condition). The
 * seed depends on the scenario and the repeat but not on the condition, so every condition meets
 * the same simulated-user randomness (common random numbers), which sharpens scenario-matched
 * comparisons.
 *
 * The plan holds only its three lists: a task, its id and whether an id is planned are computed
 * when asked, so a plan of 100,000 dialogues costs no memory per dialogue (its task objects and
 * id set used to take about 25 MB).
 */
export class RunPlan {
  readonly size: number;
  readonly #conditionIndex = new Map<string, number>();
  readonly #scenarioIndex = new Map<string, number>();
  readonly #presets: Preset[];

  constructor(
    readonly conditions: readonly ConditionConfig[],
    readonly scenarios: readonly Scenario[],
    readonly repeats: number,
    readonly runSeed: number,
  ) {
    this.size = plannedDialogueCount(conditions.length, scenarios.length, repeats);
    conditions.forEach((condition, index) => this.#conditionIndex.set(condition.name, this.#conditionIndex.get(condition.name) ?? index));
    scenarios.forEach((scenario, index) => this.#scenarioIndex.set(scenario.id, this.#scenarioIndex.get(scenario.id) ?? index));
    this.#presets = scenarios.map((scenario) => getPreset(scenario.preset));
  }

  /** The position's scenario, repeat and condition indices. */
  #parts(index: number): { scenario: number; repeat: number; condition: number } {
    if (!Number.isInteger(index) || index < 0 || index >= this.size)
      throw new RangeError(`plan index ${index} is outside the plan of ${this.size} dialogue(s)`);
    const perScenario = this.repeats * this.conditions.length;
    const scenario = Math.floor(index / perScenario);
    const within = index - scenario * perScenario;
    const repeat = Math.floor(within / this.conditions.length);
    return { scenario, repeat, condition: within - repeat * this.conditions.length };
  }

  idAt(index: number): string {
    const parts = this.#parts(index);
    return dialogueId(
      (this.conditions[parts.condition] as ConditionConfig).name,
      (this.scenarios[parts.scenario] as Scenario).id,
      parts.repeat,
    );
  }

  taskAt(index: number): DialogueTask {
    const parts = this.#parts(index);
    const condition = this.conditions[parts.condition] as ConditionConfig;
    const scenario = this.scenarios[parts.scenario] as Scenario;
    return {
      id: dialogueId(condition.name, scenario.id, parts.repeat),
      condition,
      scenario,
      preset: this.#presets[parts.scenario] as Preset,
      repeat: parts.repeat,
      seed: deriveSeed(this.runSeed, scenario.id, parts.repeat),
    };
  }

  /**
   * Whether the plan makes a dialogue of this id: `CONDITION/SCENARIO/REPEAT` (core/dialogue.ts's
   * dialogueId) for one of its conditions and scenarios and a repeat below `repeats`, written as
   * dialogueId writes it. Names may hold "/": every condition the id begins with is tried.
   */
  has(id: string): boolean {
    const cut = id.lastIndexOf("/");
    if (cut < 0) return false;
    const repeatText = id.slice(cut + 1);
    const repeat = Number(repeatText);
    if (!Number.isInteger(repeat) || repeat < 0 || repeat >= this.repeats || String(repeat) !== repeatText) return false;
    for (const name of this.#conditionIndex.keys()) {
      if (cut > name.length && id.startsWith(name) && id[name.length] === "/" && this.#scenarioIndex.has(id.slice(name.length + 1, cut)))
        return true;
    }
    return false;
  }

  /** The tasks in plan order. */
  *tasks(): Generator<DialogueTask> {
    for (let index = 0; index < this.size; index += 1) yield this.taskAt(index);
  }
}

/** The plan's tasks as a list (for small plans: cost estimates, tests). */
export function planRun(
  conditions: readonly ConditionConfig[],
  scenarios: readonly Scenario[],
  repeats: number,
  runSeed: number,
): DialogueTask[] {
  return [...new RunPlan(conditions, scenarios, repeats, runSeed).tasks()];
}

/** How many dialogues a plan makes (computed without building it). */
export function plannedDialogueCount(conditions: number, scenarios: number, repeats: number): number {
  return conditions * scenarios * repeats;
}

export { dialogueId } from "../core/dialogue.js";
