import { rowEcs, rowHid, sortedById, type DialogueRow } from "../metrics/dialogue-row.js";
import { errorCauses } from "./error-causes.js";
import { compareConditions, type MetricReader } from "./compare-conditions.js";
import { summariseCondition } from "./condition-summary.js";
import { classifyEcsJudges, ecsMetricName, noModelJudgeNote } from "./ecs-judges.js";
import { ConfigError } from "../core/errors.js";
import type { RunSummary, UsageEntry } from "./summary-schema.js";

/** The reference condition when the config names none: the reference agent that does what each type rewards. */
export const DEFAULT_REFERENCE_CONDITION = "attuned";

export interface SummaryOptions {
  /** Conditions in this order first (the run config's); others follow in id order. */
  conditionOrder: readonly string[];
  /** The run seed, from which every bootstrap seed derives. */
  seed: number;
  repeats: number;
  /** Judges in this order first (the config's); judges found only on the dialogues follow. */
  judges?: { ecs: readonly string[]; hid: readonly string[] };
  /** Token usage per model role, when the run called models. */
  usage?: UsageEntry[];
  /**
   * The reference condition (the config's `report.reference`, `aeb report --reference`): its pairs
   * form their own Holm family. Absent: `attuned` when the run has it, else none. A name without
   * dialogues in the run (a run stopped early) gives a note and no reference family; the config
   * and `aeb report --reference` reject a name that is not a condition beforehand.
   */
  reference?: string;
}

/**
 * The reference condition of a summary: the one asked for (which must be among `conditions`), else
 * {@link DEFAULT_REFERENCE_CONDITION} when present, else null.
 */
export function resolveReference(requested: string | undefined, conditions: readonly string[], source = "report.reference"): string | null {
  if (requested !== undefined) {
    if (!conditions.includes(requested)) {
      throw new ConfigError(
        `${source} names condition "${requested}", which this run does not have (its conditions: ${conditions.join(", ") || "none"}); name one of them, or leave it out to compare against ${DEFAULT_REFERENCE_CONDITION} when the run has it`,
      );
    }
    return requested;
  }
  return conditions.includes(DEFAULT_REFERENCE_CONDITION) ? DEFAULT_REFERENCE_CONDITION : null;
}

/** Judge names found on the dialogues, in order of first appearance (for runs judged after the fact). */
export function judgesOf(
  dialogues: ReadonlyArray<{ ecs?: Readonly<Record<string, unknown>> | undefined; hid?: Readonly<Record<string, unknown>> | undefined }>,
): { ecs: string[]; hid: string[] } {
  const ecs = new Set<string>();
  const hid = new Set<string>();
  for (const dialogue of dialogues) {
    for (const name of Object.keys(dialogue.ecs ?? {})) ecs.add(name);
    for (const name of Object.keys(dialogue.hid ?? {})) hid.add(name);
  }
  return { ecs: [...ecs], hid: [...hid] };
}

/**
 * summary.json of a run, from one compact row per dialogue (metrics/dialogue-row.ts): per-condition
 * results, every pairwise comparison, the length confound and the notes, in a fixed order, so the
 * same dialogues give the same bytes. A pure function of the saved record, never of live objects.
 */
export function summariseRun(rows: readonly DialogueRow[], options: SummaryOptions): RunSummary {
  const sorted = sortedById(rows);
  const found = judgesOf(rows);
  const configured = { ecs: options.judges?.ecs ?? [], hid: options.judges?.hid ?? [] };
  const judges = {
    ecs: [...configured.ecs, ...found.ecs.filter((name) => !configured.ecs.includes(name))],
    hid: [...configured.hid, ...found.hid.filter((name) => !configured.hid.includes(name))],
  };
  const ecsKinds = classifyEcsJudges(sorted, judges.ecs);
  const names = [
    ...options.conditionOrder,
    ...new Set(sorted.map((row) => row.condition).filter((name) => !options.conditionOrder.includes(name))),
  ];
  const conditions = names
    .map((name) =>
      summariseCondition(
        name,
        sorted.filter((row) => row.condition === name),
        options.seed,
        { ...judges, headlineEcs: ecsKinds.headline },
      ),
    )
    .filter((summary) => summary.n + summary.errors > 0);
  const notes: string[] = [];
  const noModelJudge = noModelJudgeNote(ecsKinds);
  if (noModelJudge !== null) notes.push(noModelJudge);
  for (const condition of conditions) {
    if (condition.errors > 0)
      notes.push(`${condition.name}: ${condition.errors} dialogue(s) ended in error and are excluded from every statistic`);
    if (condition.n < 2) notes.push(`${condition.name}: only ${condition.n} scored dialogue(s); no interval is given`);
  }
  const metrics: Record<string, MetricReader<DialogueRow>> = { fs: (row) => row.metrics.fs, hid: (row) => row.metrics.hid };
  // Only a model judge's ECS is `ecs`; a heuristic's is `ecs:NAME` like any other judge's.
  for (const judge of judges.ecs) metrics[ecsMetricName(judge, ecsKinds.headline)] = (row) => rowEcs(row, judge);
  for (const judge of judges.hid) metrics[`hid:${judge}`] = (row) => rowHid(row, judge);
  const conditionNames = conditions.map((condition) => condition.name);
  let reference: string | null;
  if (options.reference !== undefined && !conditionNames.includes(options.reference)) {
    notes.push(
      `the reference condition ${options.reference} has no dialogue in this run: every comparison is in one Holm family (no reference family)`,
    );
    reference = null;
  } else reference = resolveReference(options.reference, conditionNames);
  const compared = compareConditions(
    sorted,
    conditions.map((condition) => condition.name),
    metrics,
    { seed: options.seed, reference },
  );
  notes.push(...compared.notes);
  return {
    format: 1,
    seed: options.seed,
    reference,
    repeats: options.repeats,
    judges: {
      ...judges,
      headlineEcs: ecsKinds.headline,
      heuristicEcs: Object.fromEntries(ecsKinds.heuristics.map((heuristic) => [heuristic.name, heuristic.id])),
    },
    scenarios: new Set(sorted.map((row) => row.scenarioId)).size,
    dialogues: sorted.length,
    errors: sorted.filter((row) => row.status === "error").length,
    errorCauses: errorCauses(sorted),
    conditions,
    comparisons: compared.comparisons,
    lengthConfound: compared.lengthConfound,
    notes,
    // After the notes, where summaries have always had it.
    ...(options.usage !== undefined ? { usage: options.usage } : {}),
  };
}
