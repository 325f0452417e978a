import type { DialogueRecord } from "../../core/dialogue.js";
import { ADVERSARIAL_TYPES } from "../../core/trajectory-type.js";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";

/** Dialogues that count: status `done` (errored ones are excluded from every chart, as from every statistic). */
export function scoredRows(rows: readonly DialogueRow[]): DialogueRow[] {
  return rows.filter((row) => row.status === "done");
}

/** Conditions in the summary's order, then any that only the dialogues name. */
export function conditionOrder(summary: RunSummary, rows: readonly DialogueRow[]): string[] {
  const names = summary.conditions.map((condition) => condition.name);
  for (const row of rows) if (!names.includes(row.condition)) names.push(row.condition);
  return names;
}

/** Trajectory types in the paper's order, then any others (e.g. `cooperative`) alphabetically. */
export function typeOrder(types: Iterable<string>): string[] {
  const present = new Set(types);
  const known: string[] = ADVERSARIAL_TYPES.filter((type) => present.has(type));
  return [...known, ...[...present].filter((type) => !known.includes(type)).sort()];
}

/** One scored dialogue as a point of the per-dialogue charts. */
export interface DialoguePoint {
  id: string;
  condition: string;
  type: string;
  fs: number;
  /** Mean visible reply length in characters over the dialogue's agent replies. */
  replyChars: number;
}

/** Each scored dialogue's point, in row order. */
export function forEachDialoguePoint(rows: readonly DialogueRow[], visit: (point: DialoguePoint) => void): void {
  for (const row of rows) {
    if (row.status !== "done") continue;
    const metrics = row.metrics;
    visit({ id: row.id, condition: row.condition, type: row.type, fs: metrics.fs, replyChars: metrics.meanReplyChars });
  }
}

export function dialoguePoints(rows: readonly DialogueRow[]): DialoguePoint[] {
  const points: DialoguePoint[] = [];
  forEachDialoguePoint(rows, (point) => points.push(point));
  return points;
}

/**
 * A dialogue's emotion after each step: step 0 is the opening (before any agent reply), step k
 * the emotion the user reported after the k-th agent reply. A dialogue that ended before
 * `steps` keeps its final emotion for the remaining steps (carried forward), so every mean
 * averages the same dialogues and a collapse keeps pulling its condition down, as it does in FS.
 */
export function emotionPath(record: DialogueRecord, steps: number): number[] {
  return carriedForward([record.opening.emotion, ...record.turns.map((turn) => turn.user.emotion)], record.final.emotion, steps);
}

/** The emotions after each step (opening first), padded with the final emotion to `steps` + 1 values. */
function carriedForward(emotions: readonly number[], last: number, steps: number): number[] {
  const path = [...emotions];
  while (path.length < steps + 1) path.push(last);
  return path.slice(0, steps + 1);
}

export interface TrajectoryPoint {
  condition: string;
  step: number;
  mean: number;
  /** Normal band mean ± 1.96 SE (sample SD / sqrt n), clamped to [0, 100]; null when n < 2. */
  low: number | null;
  high: number | null;
  n: number;
}

/** Mean emotion per condition and step, with a ±1.96 SE band, over scored dialogues (each row carries its emotion after every step). */
export function emotionTrajectories(rows: readonly DialogueRow[], conditions: readonly string[]): TrajectoryPoint[] {
  const scored = scoredRows(rows);
  // Not Math.max(...array): a spread of 10,000 arguments is close to the engine's argument limit.
  const steps = scored.reduce((most, row) => Math.max(most, row.metrics.turns), 0);
  const width = steps + 1;
  const points: TrajectoryPoint[] = [];
  for (const condition of conditions) {
    const ofCondition = scored.filter((row) => row.condition === condition);
    if (ofCondition.length === 0) continue;
    // Each dialogue's carried-forward path as one row of a matrix: one typed array per condition
    // instead of an array per dialogue (at 100,000 dialogues those outlived a young collection).
    const paths = new Float64Array(ofCondition.length * width);
    ofCondition.forEach((row, index) => paths.set(carriedForward(row.emotions, row.finalEmotion, steps), index * width));
    const n = ofCondition.length;
    for (let step = 0; step <= steps; step += 1) {
      let sum = 0;
      for (let index = 0; index < n; index += 1) sum += paths[index * width + step] as number;
      const mean = sum / n;
      let low: number | null = null;
      let high: number | null = null;
      if (n >= 2) {
        let squares = 0;
        for (let index = 0; index < n; index += 1) squares += ((paths[index * width + step] as number) - mean) ** 2;
        const variance = squares / (n - 1);
        const half = 1.96 * Math.sqrt(variance / n);
        low = Math.max(0, mean - half);
        high = Math.min(100, mean + half);
      }
      points.push({ condition, step, mean, low, high, n });
    }
  }
  return points;
}
