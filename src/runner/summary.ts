import type { DialogueRecord } from "../core/dialogue.js";
import { compareConditions, type Comparison, type LengthConfoundRow } from "../analysis/compare-conditions.js";
import { simulatorHid } from "../metrics/dialogue-metrics.js";
import { summariseCondition, type ConditionSummary } from "../metrics/condition-summary.js";

/** `summary.json` (spec section 6). */
export interface RunSummary {
  format: 1;
  seed: number;
  repeats: number;
  scenarios: number;
  dialogues: number;
  errors: number;
  conditions: ConditionSummary[];
  comparisons: Comparison[];
  /** FS difference per pair of conditions with and without reply length as a covariate. */
  lengthConfound: LengthConfoundRow[];
  /** Plain-language caveats (too little data for a statistic, excluded dialogues...). */
  notes: string[];
}

/** Summarises a run from its records alone (never from live objects), in a fixed order. */
export function summariseRun(records: readonly DialogueRecord[], options: { conditionOrder: readonly string[]; seed: number; repeats: number }): RunSummary {
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const names = [...options.conditionOrder, ...new Set(sorted.map((record) => record.condition).filter((name) => !options.conditionOrder.includes(name)))];
  const conditions = names
    .map((name) => summariseCondition(name, sorted.filter((record) => record.condition === name), options.seed))
    .filter((summary) => summary.n + summary.errors > 0);
  const notes: string[] = [];
  for (const condition of conditions) {
    if (condition.errors > 0) notes.push(`${condition.name}: ${condition.errors} dialogue(s) ended in error and are excluded from every statistic`);
    if (condition.n < 2) notes.push(`${condition.name}: only ${condition.n} scored dialogue(s); no interval is given`);
  }
  const compared = compareConditions(sorted, conditions.map((condition) => condition.name), {
    fs: (record) => record.final.fs,
    hid: simulatorHid,
  });
  notes.push(...compared.notes);
  return {
    format: 1,
    seed: options.seed,
    repeats: options.repeats,
    scenarios: new Set(sorted.map((record) => record.scenarioId)).size,
    dialogues: sorted.length,
    errors: sorted.filter((record) => record.status === "error").length,
    conditions,
    comparisons: compared.comparisons,
    lengthConfound: compared.lengthConfound,
    notes,
  };
}
