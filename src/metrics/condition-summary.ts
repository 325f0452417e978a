import type { DialogueRecord } from "../core/dialogue.js";
import { deriveSeed } from "../core/random.js";
import { bootstrapMeanCI } from "../stats/bootstrap.js";
import { wilsonInterval } from "../stats/wilson.js";
import { dialogueMetrics, mean } from "./dialogue-metrics.js";

export interface MeanWithCI {
  mean: number;
  ci95: [number, number] | null;
}

/** One entry of `summary.json`'s `conditions` (spec section 6). */
export interface ConditionSummary {
  name: string;
  /** Scored dialogues (status `done`). */
  n: number;
  /** Dialogues that ended in error: excluded from every statistic, counted here. */
  errors: number;
  fs: MeanWithCI;
  collapseRate: number;
  collapseCi95: [number, number] | null;
  hid: MeanWithCI | null;
  ecs: MeanWithCI | null;
  meanReplyChars: number;
  meanReplyWords: number;
  meanThinkChars: number | null;
  meanTurns: number;
  endReasons: Record<string, number>;
  flags: Record<string, number>;
  byType: Record<string, { n: number; fsMean: number; collapseRate: number; hidMean: number | null }>;
}

/** Below this many scored dialogues an interval is not computed (and the report says so). */
export const MIN_N_FOR_INTERVAL = 2;

function meanWithCI(values: number[], seed: number): MeanWithCI {
  if (values.length < MIN_N_FOR_INTERVAL) return { mean: mean(values), ci95: null };
  return bootstrapMeanCI(values, { seed });
}

/** Summarises one condition's dialogues; the bootstrap seed derives from the run seed and the name. */
export function summariseCondition(name: string, records: readonly DialogueRecord[], runSeed: number): ConditionSummary {
  const scored = records.filter((record) => record.status === "done");
  const metrics = scored.map(dialogueMetrics);
  const hids = metrics.map((metric) => metric.hid).filter((value): value is number => value !== null);
  const thinks = metrics.map((metric) => metric.meanThinkChars).filter((value): value is number => value !== null);
  const collapses = metrics.filter((metric) => metric.collapsed).length;
  const endReasons: Record<string, number> = {};
  const flags: Record<string, number> = {};
  for (const record of records) endReasons[record.endReason] = (endReasons[record.endReason] ?? 0) + 1;
  for (const metric of metrics) for (const [flag, count] of Object.entries(metric.flags)) flags[flag] = (flags[flag] ?? 0) + count;

  const byType: ConditionSummary["byType"] = {};
  const types = [...new Set(scored.map((record) => record.type))].sort();
  for (const type of types) {
    const ofType = scored.filter((record) => record.type === type).map(dialogueMetrics);
    const typeHids = ofType.map((metric) => metric.hid).filter((value): value is number => value !== null);
    byType[type] = {
      n: ofType.length,
      fsMean: mean(ofType.map((metric) => metric.fs)),
      collapseRate: ofType.filter((metric) => metric.collapsed).length / ofType.length,
      hidMean: typeHids.length === 0 ? null : mean(typeHids),
    };
  }
  return {
    name,
    n: scored.length,
    errors: records.length - scored.length,
    fs: meanWithCI(metrics.map((metric) => metric.fs), deriveSeed(runSeed, name, "fs")),
    collapseRate: scored.length === 0 ? Number.NaN : collapses / scored.length,
    collapseCi95: scored.length === 0 ? null : wilsonInterval(collapses, scored.length),
    hid: hids.length === 0 ? null : meanWithCI(hids, deriveSeed(runSeed, name, "hid")),
    ecs: null,
    meanReplyChars: mean(metrics.map((metric) => metric.meanReplyChars)),
    meanReplyWords: mean(metrics.map((metric) => metric.meanReplyWords)),
    meanThinkChars: thinks.length === 0 ? null : mean(thinks),
    meanTurns: mean(metrics.map((metric) => metric.turns)),
    endReasons,
    flags,
    byType,
  };
}
