import type { Move } from "../lexicon/lexicon.js";
import type { Rng } from "../core/random.js";
import type { Delta, RubricItem } from "../scenarios/scenario-schema.js";

export interface FiredItem {
  id: string;
  value: number;
  description: string;
}

/** The moves of a reply at three levels of certainty; a reader that does not grade them gives one set for all. */
export interface GradedMoves {
  /** Heard: what rewards rest on. */
  heard: ReadonlySet<Move>;
  /** Confident (a subset of heard): what penalties rest on, and what blocks a reward. */
  confident: ReadonlySet<Move>;
  /** Possible (a superset of heard): what blocks a penalty. */
  possible: ReadonlySet<Move>;
}

export function ungraded(moves: ReadonlySet<Move>): GradedMoves {
  return { heard: moves, confident: moves, possible: moves };
}

/**
 * Does a rubric item's condition hold for these moves in this phase? A doubt about what a reply did
 * resolves in the agent's favour: an item that rewards needs its moves heard and is blocked only by
 * a confident move, and an item that penalises needs its moves confident and is blocked by any
 * possible one.
 */
export function rubricItemHolds(item: RubricItem, graded: GradedMoves | ReadonlySet<Move>, phase: "before" | "after"): boolean {
  if (item.phase !== "any" && item.phase !== phase) return false;
  const moves = graded instanceof Set ? ungraded(graded) : (graded as GradedMoves);
  const penalises = (typeof item.delta === "number" ? item.delta : item.delta[1]) < 0;
  const required = penalises ? moves.confident : moves.heard;
  const blocking = penalises ? moves.possible : moves.confident;
  if (item.all && !item.all.every((move) => required.has(move))) return false;
  if (item.any && item.any.length > 0 && !item.any.some((move) => required.has(move))) return false;
  if (item.none && item.none.some((move) => blocking.has(move))) return false;
  return true;
}

export function drawDelta(delta: Delta, rng: Rng): number {
  return typeof delta === "number" ? delta : rng.int(delta[0], delta[1]);
}

/** Every rubric item that fires, with its drawn value, in rubric order. */
export function evaluateRubric(
  rubric: readonly RubricItem[],
  moves: GradedMoves | ReadonlySet<Move>,
  phase: "before" | "after",
  rng: Rng,
): FiredItem[] {
  return rubric
    .filter((item) => rubricItemHolds(item, moves, phase))
    .map((item) => ({ id: item.id, value: drawDelta(item.delta, rng), description: item.description }));
}
