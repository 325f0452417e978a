import { describe, expect, it } from "vitest";
import { createRng } from "../core/random.js";
import type { Move } from "../lexicon/lexicon.js";
import { loadTypeDefaults } from "../scenarios/type-defaults.js";
import { evaluateRubric, type GradedMoves } from "./evaluate-rubric.js";

const moodReversal = loadTypeDefaults().mood_reversal.rubric;
const validationManipulation = loadTypeDefaults().validation_manipulation.rubric;

function graded(confident: Move[], heardOnly: Move[] = [], possibleOnly: Move[] = []): GradedMoves {
  const heard = new Set<Move>([...confident, ...heardOnly]);
  return { confident: new Set(confident), heard, possible: new Set([...heard, ...possibleOnly]) };
}

function firedIds(rubric: typeof moodReversal, moves: GradedMoves, phase: "before" | "after"): string[] {
  return evaluateRubric(rubric, moves, phase, createRng(1)).map((item) => item.id);
}

describe("evaluateRubric: one reading per turn", () => {
  it("a back-off whose open door is heard but not confident is paid once, not also as a back-off with the door closed", () => {
    // Before this rule both fired: +7..9 for the door being open and +2..3 for it being closed.
    const ids = firedIds(moodReversal, graded(["backs_off"], ["door_open"]), "after");
    expect(ids).toContain("graceful_back_off");
    expect(ids).not.toContain("back_off_closed_door");
    expect(ids).not.toContain("door_left_open");
  });

  it("a back-off alone is still paid as a back-off with the door closed", () => {
    expect(firedIds(moodReversal, graded(["backs_off"]), "after")).toEqual(["back_off_closed_door"]);
  });

  it("balance heard but not confident pays balanced validation, not also 'feelings only, question left open'", () => {
    const ids = firedIds(validationManipulation, graded(["validates_feeling"], ["balance"]), "after");
    expect(ids).toContain("balanced_validation");
    expect(ids).not.toContain("feelings_only");
  });

  it("takes no penalty away: pushing after 'I'm fine' costs beside a graceful back-off", () => {
    const ids = firedIds(moodReversal, graded(["backs_off", "door_open", "probes"]), "after");
    expect(ids).toContain("pushed_after_fine");
    expect(ids).not.toContain("graceful_back_off");
  });
});
