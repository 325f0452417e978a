import { describe, expect, it } from "vitest";
import { dialogueId } from "../core/dialogue.js";
import { deriveSeed } from "../core/random.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { selectScenarios } from "./run-benchmark.js";
import { parseRunConfig, type ConditionConfig } from "./run-config.js";
import { RunPlan } from "./run-plan.js";

const config = parseRunConfig({ seed: 7, repeats: 3, scenarios: { suite: "starter" } }, "test");
const scenarios = selectScenarios(config).slice(0, 4);

describe("RunPlan", () => {
  it("makes the tasks of conditions x scenarios x repeats in the order scenario, repeat, condition, seeds by scenario and repeat", () => {
    const plan = new RunPlan(config.conditions, scenarios, 3, 7);
    expect(plan.size).toBe(config.conditions.length * 4 * 3);
    const expected: Array<{ id: string; seed: number }> = [];
    for (const scenario of scenarios)
      for (let repeat = 0; repeat < 3; repeat += 1)
        for (const condition of config.conditions)
          expected.push({ id: dialogueId(condition.name, scenario.id, repeat), seed: deriveSeed(7, scenario.id, repeat) });
    expect([...plan.tasks()].map((task) => ({ id: task.id, seed: task.seed }))).toEqual(expected);
    expect(expected.map((_, index) => plan.idAt(index))).toEqual(expected.map((task) => task.id));
    const last = plan.taskAt(plan.size - 1);
    expect(last.condition).toBe(config.conditions.at(-1));
    expect(last.scenario).toBe(scenarios.at(-1));
    expect(last.repeat).toBe(2);
    expect(() => plan.taskAt(plan.size)).toThrow(/outside the plan/);
  });

  it("says an id is planned exactly when one of its tasks has it, names with slashes included", () => {
    const conditions: ConditionConfig[] = [
      { name: "a", agent: { kind: "reference", id: "attuned" } },
      { name: "a/b", agent: { kind: "reference", id: "formulaic" } },
    ];
    const named = [
      { ...(scenarios[0] as Scenario), id: "s" },
      { ...(scenarios[1] as Scenario), id: "b/s" },
    ];
    const plan = new RunPlan(conditions, named, 11, 1);
    const ids = new Set([...plan.tasks()].map((task) => task.id));
    for (const id of ids) expect(plan.has(id)).toBe(true);
    expect(ids.has("a/b/s/10")).toBe(true);
    for (const id of ["a/s/11", "a/s/01", "a/s/-1", "a/s/1.0", "a/s/", "a/t/0", "c/s/0", "a/s", "s/0", "", "a//s/0", "a/b/0"])
      expect([id, plan.has(id)]).toEqual([id, ids.has(id)]);
  });
});
