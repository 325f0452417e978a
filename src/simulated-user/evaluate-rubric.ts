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

function rewards(item: RubricItem): boolean {
  return (typeof item.delta === "number" ? item.delta : item.delta[1]) > 0;
}

/**
 * Every rubric item that fires, with its drawn value, in rubric order. One reading per turn: a move
 * heard but not confident may satisfy a reward and, being not confident, fail to block another
 * reward whose `none` excludes it, so the reply would be paid both for making the move and for not
 * making it (backing off with the door open +7..9 and backing off with it closed +2..3). A move a
 * fired reward rests on therefore blocks the rewards that exclude it. Penalties are untouched, so
 * this can only take pay away.
 */
export function evaluateRubric(
  rubric: readonly RubricItem[],
  moves: GradedMoves | ReadonlySet<Move>,
  phase: "before" | "after",
  rng: Rng,
): FiredItem[] {
  const graded = moves instanceof Set ? ungraded(moves) : (moves as GradedMoves);
  const holding = rubric.filter((item) => rubricItemHolds(item, graded, phase));
  const restedOn = new Set<Move>();
  for (const item of holding) {
    if (!rewards(item)) continue;
    for (const move of [...(item.all ?? []), ...(item.any ?? [])]) if (graded.heard.has(move)) restedOn.add(move);
  }
  return holding
    .filter((item) => !rewards(item) || !(item.none ?? []).some((move) => restedOn.has(move)))
    .map((item) => ({ id: item.id, value: drawDelta(item.delta, rng), description: item.description }));
}

/** The moves that the reply was paid for: those named (`any`, `all`) by an item of `rubric` that fired with a positive value. */
export function paidMoves(fired: readonly FiredItem[], rubric: readonly RubricItem[]): Set<Move> {
  const byId = new Map(rubric.map((item) => [item.id, item]));
  const paid = new Set<Move>();
  for (const item of fired) {
    const definition = byId.get(item.id);
    if (item.value <= 0 || definition === undefined) continue;
    for (const move of [...(definition.any ?? []), ...(definition.all ?? [])]) paid.add(move);
  }
  return paid;
}
