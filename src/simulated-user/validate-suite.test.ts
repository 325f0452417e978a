import { describe, expect, it } from "vitest";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { lintScenario, validateSuite } from "./validate-suite.js";

const all = loadScenarioDirectory(BUILTIN_SCENARIO_DIR);

describe("aeb scenarios validate", () => {
  it("passes the full suite with ten scenarios per type", () => {
    const report = validateSuite(filterScenarios(all, { suite: "full" }), { perType: 10 });
    expect(report.problems).toEqual([]);
    expect(report.lines).toContain("  escalation                   10");
  });

  it("passes every built-in scenario", () => {
    expect(validateSuite(all).problems).toEqual([]);
  });

  it("has the classic suite: one scenario per type", () => {
    expect(
      filterScenarios(all, { suite: "classic" })
        .map((scenario) => scenario.type)
        .sort(),
    ).toEqual([
      "emotional_flooding",
      "escalation",
      "fact_emotion_contradiction",
      "gaslighting",
      "mood_reversal",
      "validation_manipulation",
    ]);
  });

  it("catches an opening that gives the hidden intention away", () => {
    const scenario = all.find((candidate) => candidate.type === "escalation")!;
    const leaky = { ...scenario, opening: `${scenario.hiddenIntention.text} That is all.` };
    expect(lintScenario(leaky).join("\n")).toMatch(/gives away the hidden intention/);
  });

  it("catches a rubric item no reply can trigger", () => {
    const scenario = all.find((candidate) => candidate.type === "escalation")!;
    const impossible = {
      ...scenario,
      trait: {
        ...scenario.trait,
        rubric: [
          {
            id: "grounded",
            phase: "any" as const,
            all: ["names_unfairness" as const],
            none: ["grounded" as const, "softens" as const],
            any: ["softens" as const],
            delta: 3,
            description: "x",
          },
        ],
      },
    };
    expect(lintScenario(impossible).join("\n")).toMatch(/can never fire|cannot be reached/);
    const unreachable = {
      ...scenario,
      trait: {
        ...scenario.trait,
        rubric: [
          {
            id: "grounded",
            phase: "any" as const,
            all: ["agrees_fully" as const],
            none: ["names_unfairness" as const],
            delta: 3,
            description: "x",
          },
        ],
      },
    };
    // "You were completely right" reads as full agreement and nothing else: reachable.
    expect(lintScenario(unreachable)).toEqual([]);
  });
});
