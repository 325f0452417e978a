import type { DialogueRecord } from "../core/dialogue.js";
import { compareConditions, type Comparison, type LengthConfoundRow } from "../analysis/compare-conditions.js";
import { simulatorHid } from "../metrics/dialogue-metrics.js";
import { judgedEcs, judgedHid, summariseCondition, type ConditionSummary } from "../metrics/condition-summary.js";

/** `summary.json` (spec section 6). */
export interface RunSummary {
  format: 1;
  seed: number;
  repeats: number;
  /** ECS judges in order (the first gives each condition's `ecs`) and independent HID judges. */
  judges: { ecs: string[]; hid: string[] };
  scenarios: number;
  dialogues: number;
  errors: number;
  conditions: ConditionSummary[];
  comparisons: Comparison[];
  /** FS difference per pair of conditions with and without reply length as a covariate. */
  lengthConfound: LengthConfoundRow[];
  /** Token usage per model role, over every invocation on the run directory (LLM runs only). */
  usage?: Array<{ model: string; role: string; calls: number; cachedCalls: number; failedCalls: number; requests: number; retries: number; promptTokens: number; completionTokens: number }>;
  /** Plain-language caveats (too little data for a statistic, excluded dialogues...). */
  notes: string[];
}

/** Summarises a run from its records alone (never from live objects), in a fixed order. */
/** Judge names found on the records, in order of first appearance (for runs judged after the fact). */
export function judgesOf(records: readonly DialogueRecord[]): { ecs: string[]; hid: string[] } {
  const ecs = new Set<string>();
  const hid = new Set<string>();
  for (const record of records) {
    for (const name of Object.keys(record.ecs ?? {})) ecs.add(name);
    for (const name of Object.keys(record.hid ?? {})) hid.add(name);
  }
  return { ecs: [...ecs], hid: [...hid] };
}

export function summariseRun(
  records: readonly DialogueRecord[],
  options: { conditionOrder: readonly string[]; seed: number; repeats: number; judges?: { ecs: string[]; hid: string[] } },
): RunSummary {
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const found = judgesOf(records);
  const judges = {
    ecs: [...(options.judges?.ecs ?? []), ...found.ecs.filter((name) => !(options.judges?.ecs ?? []).includes(name))],
    hid: [...(options.judges?.hid ?? []), ...found.hid.filter((name) => !(options.judges?.hid ?? []).includes(name))],
  };
  const names = [...options.conditionOrder, ...new Set(sorted.map((record) => record.condition).filter((name) => !options.conditionOrder.includes(name)))];
  const conditions = names
    .map((name) => summariseCondition(name, sorted.filter((record) => record.condition === name), options.seed, judges))
    .filter((summary) => summary.n + summary.errors > 0);
  const notes: string[] = [];
  for (const condition of conditions) {
    if (condition.errors > 0) notes.push(`${condition.name}: ${condition.errors} dialogue(s) ended in error and are excluded from every statistic`);
    if (condition.n < 2) notes.push(`${condition.name}: only ${condition.n} scored dialogue(s); no interval is given`);
  }
  const metrics: Record<string, (record: DialogueRecord) => number | null> = { fs: (record) => record.final.fs, hid: simulatorHid };
  judges.ecs.forEach((judge, index) => (metrics[index === 0 ? "ecs" : `ecs:${judge}`] = (record) => judgedEcs(record, judge)));
  for (const judge of judges.hid) metrics[`hid:${judge}`] = (record) => judgedHid(record, judge);
  const compared = compareConditions(sorted, conditions.map((condition) => condition.name), metrics);
  notes.push(...compared.notes);
  return {
    format: 1,
    seed: options.seed,
    repeats: options.repeats,
    judges,
    scenarios: new Set(sorted.map((record) => record.scenarioId)).size,
    dialogues: sorted.length,
    errors: sorted.filter((record) => record.status === "error").length,
    conditions,
    comparisons: compared.comparisons,
    lengthConfound: compared.lengthConfound,
    notes,
  };
}
