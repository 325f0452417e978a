import { classifyEcsJudges, type EcsJudgeKinds } from "../analysis/ecs-judges.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import type { DialogueRecord } from "../core/dialogue.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";

/**
 * One ECS judge's result on one dialogue, as the reports read it from `record.ecs`.
 *
 * `record.ecs` is keyed by judge name; each value carries at least a numeric `score` and, where
 * the judge scored turns on both sides of the manipulation turn, numeric `before` and `after`.
 * Anything else in the object is ignored, and entries without a finite `score` are skipped
 * (and counted), so the reports keep working while the judge's record grows.
 */
export interface EcsEntry {
  judge: string;
  score: number;
  before: number | null;
  after: number | null;
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The readable ECS entries of one dialogue (judges in name order), and how many were unreadable. */
export function readEcs(record: DialogueRecord): { entries: EcsEntry[]; unreadable: number } {
  const ecs = record.ecs;
  if (ecs === undefined || ecs === null || typeof ecs !== "object" || Array.isArray(ecs)) {
    return { entries: [], unreadable: ecs === undefined || ecs === null ? 0 : 1 };
  }
  const entries: EcsEntry[] = [];
  let unreadable = 0;
  for (const judge of Object.keys(ecs).sort()) {
    const value = (ecs as Record<string, unknown>)[judge];
    const fields = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
    const score = finiteOrNull(fields.score);
    if (score === null) {
      unreadable += 1;
      continue;
    }
    entries.push({ judge, score, before: finiteOrNull(fields.before), after: finiteOrNull(fields.after) });
  }
  return { entries, unreadable };
}

/**
 * {@link readEcs} of a dialogue's row: the same entries. A row keeps whatever numbers the record
 * had (the summary takes them as they are); the reports take finite ones only, as from the record.
 */
export function readRowEcs(row: DialogueRow): { entries: EcsEntry[]; unreadable: number } {
  const entries: EcsEntry[] = [];
  let unreadable = 0;
  // A stored row builds its ECS object on each read: read it once.
  const ecs = row.ecs;
  for (const judge of Object.keys(ecs).sort()) {
    const fields = ecs[judge] as DialogueRow["ecs"][string];
    const score = finiteOrNull(fields.score);
    if (score === null) {
      unreadable += 1;
      continue;
    }
    entries.push({ judge, score, before: finiteOrNull(fields.before), after: finiteOrNull(fields.after) });
  }
  return { entries, unreadable };
}

/** The ECS judges that scored at least one of these dialogues, in name order. */
export function ecsJudgesOfRows(rows: readonly DialogueRow[]): string[] {
  const judges = new Set<string>();
  for (const row of rows) for (const entry of readRowEcs(row).entries) judges.add(entry.judge);
  return [...judges].sort();
}

/**
 * The ECS judges of a report sorted into model judges and heuristics (analysis/ecs-judges.ts): the
 * headline is summary.json's `judges.headlineEcs` where the summary has that field, else the first
 * model judge found from the dialogues' judge ids (an older summary took its first judge, whatever
 * it was, and is relabelled here). Heuristics always come from the dialogues' judge ids.
 */
export function reportEcsKinds(summary: RunSummary, rows: readonly DialogueRow[], judges: readonly string[]): EcsJudgeKinds {
  const kinds = classifyEcsJudges(rows, judges);
  const recorded = summary.judges.headlineEcs;
  if (recorded !== undefined) return { ...kinds, headline: recorded };
  return kinds;
}

/** A judge's name as a chart panel shows it: a heuristic's says what it is. */
export function ecsPanelLabel(judge: string, kinds: EcsJudgeKinds): string {
  const heuristic = kinds.heuristics.find((candidate) => candidate.name === judge);
  return heuristic === undefined ? judge : `${judge} (${heuristic.label}, not a model judge)`;
}
