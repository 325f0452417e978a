import type { EcsTurnEstimate } from "../core/judgement.js";
import { spearman } from "../stats/spearman.js";

/** One judged turn: the judge's prediction and confidence, and the emotion the simulator reported. */
export type EcsTurn = EcsTurnEstimate;

/**
 * The AEB paper's score for a turn its judge could not read: a prediction of 50 with confidence 0,
 * i.e. a penalty of |50 - e| / 200. Only used where a judge is configured `unreadableTurn: impute-50`.
 */
export function imputedTurn(index: number, actual: number): EcsTurn {
  return { index, predicted: 50, confidence: 0, actual, imputed: true };
}

export interface EcsScores {
  /** ECS over all judged turns; null when none was judged. */
  score: number | null;
  /** ECS over turns before / from the manipulation turn on. */
  before: number | null;
  after: number | null;
  /** before - after: how much legibility the manipulation cost. */
  drop: number | null;
  /** Spearman rho of predicted and actual emotion, where at least three turns were judged. */
  spearman: number | null;
  turns: number;
}

/** ECS = 1 - mean_t(|p_t - e_t| / 100 * (0.5 + 0.5 c_t / 100)) (docs/output-format.md). */
export function ecsOf(turns: readonly EcsTurn[]): number | null {
  if (turns.length === 0) return null;
  const penalty = turns.reduce(
    (sum, turn) => sum + (Math.abs(turn.predicted - turn.actual) / 100) * (0.5 + (0.5 * turn.confidence) / 100),
    0,
  );
  return 1 - penalty / turns.length;
}

export function ecsScores(turns: readonly EcsTurn[], manipulationTurn: number): EcsScores {
  const before = ecsOf(turns.filter((turn) => turn.index < manipulationTurn));
  const after = ecsOf(turns.filter((turn) => turn.index >= manipulationTurn));
  let rho: number | null = null;
  if (turns.length >= 3) {
    const value = spearman(
      turns.map((turn) => turn.predicted),
      turns.map((turn) => turn.actual),
    ).rho;
    rho = Number.isFinite(value) ? value : null;
  }
  return {
    score: ecsOf(turns),
    before,
    after,
    drop: before !== null && after !== null ? before - after : null,
    spearman: rho,
    turns: turns.length,
  };
}
