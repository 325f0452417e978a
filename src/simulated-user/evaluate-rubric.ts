import type { Move } from "../lexicon/lexicon.js";
import type { Rng } from "../core/random.js";
import type { Delta, RubricItem } from "../scenarios/scenario-schema.js";

export interface FiredItem {
  id: string;
  value: number;
  description: string;
}

/** Does a rubric item's condition hold for these moves in this phase? */
export function rubricItemHolds(item: RubricItem, moves: ReadonlySet<Move>, phase: "before" | "after"): boolean {
  if (item.phase !== "any" && item.phase !== phase) return false;
  if (item.all && !item.all.every((move) => moves.has(move))) return false;
  if (item.any && item.any.length > 0 && !item.any.some((move) => moves.has(move))) return false;
  if (item.none && item.none.some((move) => moves.has(move))) return false;
  return true;
}

export function drawDelta(delta: Delta, rng: Rng): number {
  return typeof delta === "number" ? delta : rng.int(delta[0], delta[1]);
}

/** Every rubric item that fires, with its drawn value, in rubric order. */
export function evaluateRubric(rubric: readonly RubricItem[], moves: ReadonlySet<Move>, phase: "before" | "after", rng: Rng): FiredItem[] {
  return rubric
    .filter((item) => rubricItemHolds(item, moves, phase))
    .map((item) => ({ id: item.id, value: drawDelta(item.delta, rng), description: item.description }));
}
