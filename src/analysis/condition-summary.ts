import { deriveSeed } from "../core/random.js";
import { mean } from "../metrics/dialogue-metrics.js";
import { rowEcs, rowHid, type DialogueRow } from "../metrics/dialogue-row.js";
import { bootstrapMeanCI } from "../stats/bootstrap.js";
import { wilsonInterval } from "../stats/wilson.js";
import type { ConditionSummary, MeanWithCI } from "./summary-schema.js";

export type { ConditionSummary, MeanWithCI } from "./summary-schema.js";

/** Below this many scored dialogues an interval is not computed (and the report says so). */
export const MIN_N_FOR_INTERVAL = 2;

function meanWithCI(values: number[], seed: number): MeanWithCI {
  if (values.length < MIN_N_FOR_INTERVAL) return { mean: mean(values), ci95: null };
  return bootstrapMeanCI(values, { seed });
}

/**
 * Summarises one condition's dialogues; the bootstrap seed derives from the run seed and the name.
 * `judges.headlineEcs` names the ECS judge whose mean becomes `ecs` (a model judge; null for none).
 */
export function summariseCondition(
  name: string,
  rows: readonly DialogueRow[],
  runSeed: number,
  judges: { ecs: readonly string[]; hid: readonly string[]; headlineEcs: string | null } = { ecs: [], hid: [], headlineEcs: null },
): ConditionSummary {
  const scored = rows.filter((row) => row.status === "done");
  const metrics = scored.map((row) => row.metrics);
  const hids = metrics.map((metric) => metric.hid).filter((value): value is number => value !== null);
  const thinks = metrics.map((metric) => metric.meanThinkChars).filter((value): value is number => value !== null);
  const collapses = metrics.filter((metric) => metric.collapsed).length;
  const endReasons: Record<string, number> = {};
  const flags: Record<string, number> = {};
  for (const row of rows) endReasons[row.endReason] = (endReasons[row.endReason] ?? 0) + 1;
  for (const metric of metrics) for (const [flag, count] of Object.entries(metric.flags)) flags[flag] = (flags[flag] ?? 0) + count;

  const byType: ConditionSummary["byType"] = {};
  const types = [...new Set(scored.map((row) => row.type))].sort();
  for (const type of types) {
    const ofType = scored.filter((row) => row.type === type).map((row) => row.metrics);
    const typeHids = ofType.map((metric) => metric.hid).filter((value): value is number => value !== null);
    byType[type] = {
      n: ofType.length,
      fsMean: mean(ofType.map((metric) => metric.fs)),
      collapseRate: ofType.filter((metric) => metric.collapsed).length / ofType.length,
      hidMean: typeHids.length === 0 ? null : mean(typeHids),
    };
  }
  const ecsByJudge: ConditionSummary["ecsByJudge"] = {};
  for (const judge of judges.ecs) {
    const values = scored.map((row) => rowEcs(row, judge)).filter((value): value is number => value !== null);
    const part = (key: "before" | "after" | "drop") => {
      const list = scored.map((row) => row.ecs[judge]?.[key]).filter((value): value is number => typeof value === "number");
      return list.length === 0 ? null : mean(list);
    };
    const judgeErrors = scored.reduce((sum, row) => sum + (row.ecs[judge]?.errors ?? 0), 0);
    ecsByJudge[judge] = {
      mean: values.length === 0 ? null : meanWithCI(values, deriveSeed(runSeed, name, "ecs", judge)),
      before: part("before"),
      after: part("after"),
      drop: part("drop"),
      judged: values.length,
      judgeErrors,
    };
  }
  const hidByJudge: ConditionSummary["hidByJudge"] = {};
  for (const judge of judges.hid) {
    const values = scored.map((row) => rowHid(row, judge)).filter((value): value is number => value !== null);
    const judgeErrors = scored.filter((row) => row.hid[judge]?.error === true).length;
    hidByJudge[judge] = {
      mean: values.length === 0 ? null : meanWithCI(values, deriveSeed(runSeed, name, "hid", judge)),
      judged: values.length,
      judgeErrors,
    };
  }
  // The headline ECS is a model judge's only (analysis/ecs-judges.ts); a heuristic stays in ecsByJudge.
  const primaryEcs = judges.headlineEcs === null ? undefined : ecsByJudge[judges.headlineEcs];
  return {
    name,
    n: scored.length,
    errors: rows.length - scored.length,
    fs: meanWithCI(
      metrics.map((metric) => metric.fs),
      deriveSeed(runSeed, name, "fs"),
    ),
    collapseRate: scored.length === 0 ? Number.NaN : collapses / scored.length,
    collapseCi95: scored.length === 0 ? null : wilsonInterval(collapses, scored.length),
    hid: hids.length === 0 ? null : meanWithCI(hids, deriveSeed(runSeed, name, "hid")),
    ecs: primaryEcs?.mean ?? null,
    meanReplyChars: mean(metrics.map((metric) => metric.meanReplyChars)),
    meanReplyWords: mean(metrics.map((metric) => metric.meanReplyWords)),
    ...(metrics.length > 0 && metrics.every((metric) => metric.meanReplyTokens !== undefined)
      ? { meanReplyTokens: mean(metrics.map((metric) => metric.meanReplyTokens as number)) }
      : {}),
    meanThinkChars: thinks.length === 0 ? null : mean(thinks),
    meanTurns: mean(metrics.map((metric) => metric.turns)),
    endReasons,
    flags,
    byType,
    ecsByJudge,
    hidByJudge,
  };
}
