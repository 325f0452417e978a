import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { COOPERATIVE_LABEL, isCooperative } from "../cooperative.js";
import { ecsPanelLabel, readRowEcs, reportEcsKinds } from "../ecs-entries.js";
import { conditionOrder, scoredRows, typeOrder } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { GroupMeans, MAX_DIALOGUE_POINTS } from "./point-sample.js";
import { CHART_CONFIG, NO_ECS_MESSAGE, conditionScale } from "./theme.js";

export interface EcsPhaseRow {
  condition: string;
  type: string;
  judge: string;
  phase: "before" | "after";
  ecs: number;
}

/**
 * ECS before and after the manipulation turn, one row per dialogue, judge and phase that has a
 * value. Cooperative users (SAGE/RLVER profiles) have no manipulation turn and are left out.
 */
export function ecsPhaseRows(rows: readonly DialogueRow[]): EcsPhaseRow[] {
  const phaseRows: EcsPhaseRow[] = [];
  forEachEcsPhaseRow(rows, (row) => phaseRows.push(row));
  return phaseRows;
}

/** Each of {@link ecsPhaseRows}, in order, without keeping them. */
function forEachEcsPhaseRow(rows: readonly DialogueRow[], visit: (row: EcsPhaseRow) => void): void {
  for (const row of rows) {
    if (row.status !== "done" || isCooperative(row.type)) continue;
    const { condition, type } = row;
    // Literals, not spreads of a shared base: a spread object per value took seconds for 200,000 and outlived young collections.
    for (const { judge, before, after } of readRowEcs(row).entries) {
      if (before !== null) visit({ condition, type, judge, phase: "before", ecs: before });
      if (after !== null) visit({ condition, type, judge, phase: "after", ecs: after });
    }
  }
}

/**
 * (e) Mean ECS before vs after the manipulation turn, one panel per trajectory type (and one row
 * per ECS judge when there are several), a line per condition. A falling line is an ECS drop:
 * the judge reads the user less well once the user starts to mislead. Types whose manipulation
 * turn is 0 have no "before" point. Above a few thousand values the means are taken here rather
 * than by Vega (the same means; Vega then holds one value per mark instead of one per dialogue).
 */
export function ecsBeforeAfterSpec(summary: RunSummary, rows: readonly DialogueRow[]): TopLevelSpec {
  // The values are kept while there are few; past the limit only their means are (taken as they pass).
  let phaseRows: EcsPhaseRow[] | undefined = [];
  const means = new GroupMeans<EcsPhaseRow>(["condition", "type", "judge", "phase"], ["ecs"]);
  const phaseJudges = new Set<string>();
  let valueCount = 0;
  forEachEcsPhaseRow(rows, (row) => {
    valueCount += 1;
    phaseJudges.add(row.judge);
    means.add(row);
    if (phaseRows !== undefined && valueCount > MAX_DIALOGUE_POINTS) phaseRows = undefined;
    phaseRows?.push(row);
  });
  if (valueCount === 0) {
    const scored = scoredRows(rows);
    const anyEcs = scored.some((row) => readRowEcs(row).entries.length > 0);
    if (anyEcs && scored.every((row) => isCooperative(row.type))) {
      return placeholderSpec("no manipulation turn to split at", `every dialogue is a ${COOPERATIVE_LABEL}, which has none`);
    }
    return anyEcs
      ? placeholderSpec("no ECS before/after values", "the ECS judge recorded no `before` or `after` scores")
      : placeholderSpec(NO_ECS_MESSAGE, "the dialogues carry no ECS scores; run with an ECS judge to see this chart");
  }
  // A heuristic's panel says what it is (analysis/ecs-judges.ts).
  const kinds = reportEcsKinds(summary, rows, [...phaseJudges]);
  const reduced = phaseRows ?? (means.means() as unknown as EcsPhaseRow[]);
  const values = reduced.map((row) => ({ ...row, judge: ecsPanelLabel(row.judge, kinds) }));
  const judges = [...new Set(values.map((value) => value.judge))].sort();
  const types = typeOrder(values.map((value) => value.type));
  const colour = { field: "condition", type: "nominal" as const, scale: conditionScale(conditionOrder(summary, rows)), title: "condition" };
  const x = {
    field: "phase",
    type: "ordinal" as const,
    sort: ["before", "after"],
    title: null,
    axis: { labelAngle: 0 },
    scale: { domain: ["before", "after"], padding: 0.4 },
  };
  const y = { field: "ecs", type: "quantitative" as const, aggregate: "mean" as const, title: "mean ECS", scale: { zero: false } };
  const header = { labelExpr: "split(replace(datum.label, /_/g, ' '), ' ')", labelLineHeight: 12 };
  return {
    data: { values },
    facet: {
      column: { field: "type", type: "nominal", sort: types, title: "trajectory type (manipulation turn splits before / after)", header },
      ...(judges.length > 1
        ? { row: { field: "judge", type: "nominal" as const, sort: judges, title: "ECS judge", header: { labelLimit: 0 } } }
        : {}),
    },
    spec: {
      width: 92,
      height: 200,
      layer: [
        { mark: { type: "line", strokeWidth: 2 }, encoding: { x, y, color: colour } },
        { mark: { type: "point", filled: true, size: 50, opacity: 1 }, encoding: { x, y, color: colour } },
      ],
    },
    ...(judges.length === 1 ? { title: { text: `ECS judge: ${judges[0]}`, fontSize: 12, fontWeight: "normal" as const } } : {}),
    config: CHART_CONFIG,
  };
}
