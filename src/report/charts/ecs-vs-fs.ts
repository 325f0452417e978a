import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { ecsPanelLabel, readRowEcs, reportEcsKinds } from "../ecs-entries.js";
import { conditionOrder, scoredRows } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { GroupMeans, sampleDialogueIds, type PointSample } from "./point-sample.js";
import { CHART_CONFIG, NO_ECS_MESSAGE, conditionScale } from "./theme.js";

/** One dialogue's (FS, ECS) pair of the dissociation plot, for one ECS judge. */
export interface EcsFsPoint {
  id: string;
  condition: string;
  judge: string;
  fs: number;
  ecs: number;
}

/** Each per-dialogue (FS, ECS) pair of the dissociation plot, one per scored dialogue and ECS judge, in row order. */
function forEachEcsFsPoint(rows: readonly DialogueRow[], visit: (point: EcsFsPoint) => void): void {
  for (const row of rows) {
    if (row.status !== "done") continue;
    for (const entry of readRowEcs(row).entries)
      visit({ id: row.id, condition: row.condition, judge: entry.judge, fs: row.metrics.fs, ecs: entry.score });
  }
}

/** The per-dialogue (FS, ECS) pairs of the dissociation plot, one per dialogue and ECS judge. */
export function ecsFsPoints(rows: readonly DialogueRow[]): EcsFsPoint[] {
  const points: EcsFsPoint[] = [];
  forEachEcsFsPoint(rows, (point) => points.push(point));
  return points;
}

/**
 * (d) The dissociation plot: ECS against FS per dialogue, coloured by condition, one panel per
 * ECS judge, with a diamond at each condition's mean. A condition that moves right (higher FS)
 * without moving up (no higher ECS) improved outcomes without making the user more legible.
 * Above a few thousand dialogues the points are a fixed sample, the same dialogues in every panel
 * (point-sample.ts), and the diamonds the means over every dialogue.
 */
export function ecsVsFsSpec(
  summary: RunSummary,
  rows: readonly DialogueRow[],
  sample: PointSample = sampleDialogueIds(scoredRows(rows), summary.seed),
): TopLevelSpec {
  // One pass over the dialogues' points: each is kept only where drawn (a large run's sample);
  // what the chart says of all of them (its judges, whether ECS stays in [0, 1], the condition
  // means) is taken as they pass, so no copy of every point is held.
  const { ids } = sample;
  const drawnPoints: EcsFsPoint[] = [];
  const pointJudges = new Set<string>();
  const means = new GroupMeans<EcsFsPoint>(["judge", "condition"], ["fs", "ecs"]);
  let pointCount = 0;
  let inUnit = true;
  forEachEcsFsPoint(rows, (point) => {
    pointCount += 1;
    pointJudges.add(point.judge);
    if (!(point.ecs >= 0 && point.ecs <= 1)) inUnit = false;
    if (ids !== undefined) means.add(point);
    if (ids === undefined || ids.has(point.id)) drawnPoints.push(point);
  });
  if (pointCount === 0) return placeholderSpec(NO_ECS_MESSAGE, "the dialogues carry no ECS scores; run with an ECS judge to see this plot");
  // A heuristic's panel says what it is (analysis/ecs-judges.ts).
  const kinds = reportEcsKinds(summary, rows, [...pointJudges]);
  // A large run's points are labelled only where drawn: a copy of every point is what sampling saves.
  const values = drawnPoints.map((point) => ({ ...point, judge: ecsPanelLabel(point.judge, kinds) }));
  const judges = [...new Set([...pointJudges].map((judge) => ecsPanelLabel(judge, kinds)))].sort();
  const colour = { field: "condition", type: "nominal" as const, scale: conditionScale(conditionOrder(summary, rows)), title: "condition" };
  const x = { field: "fs", type: "quantitative" as const, title: "FS (outcome)", scale: { domain: [0, 1] } };
  const y = {
    field: "ecs",
    type: "quantitative" as const,
    title: "ECS (legibility of the user's state)",
    scale: inUnit ? { domain: [0, 1] } : { zero: false },
  };
  const facet = {
    column: { field: "judge", type: "nominal" as const, sort: judges, title: "ECS judge", header: { labelFontSize: 12, labelLimit: 0 } },
  };
  if (ids !== undefined) {
    // The means ride in the same data as the sample (a facet takes one data source), told apart by `mark`.
    const drawn = values.map((value) => ({ ...value, mark: "dialogue" }));
    const meanMarks = means.means().map((mean) => ({
      ...mean,
      judge: ecsPanelLabel(mean.judge as string, kinds),
      mark: "mean",
    }));
    return {
      data: { values: [...drawn, ...meanMarks] },
      facet,
      spec: {
        width: judges.length > 1 ? 340 : 460,
        height: 300,
        layer: [
          {
            transform: [{ filter: "datum.mark === 'dialogue'" }],
            mark: { type: "point", filled: true, size: 40, opacity: 0.55 },
            encoding: { x, y, color: colour },
          },
          {
            transform: [{ filter: "datum.mark === 'mean'" }],
            mark: { type: "point", shape: "diamond", filled: true, size: 240, stroke: "#222", strokeWidth: 1.2, opacity: 1 },
            encoding: { x, y, color: colour },
          },
        ],
      },
      config: CHART_CONFIG,
    };
  }
  return {
    data: { values },
    facet,
    spec: {
      width: judges.length > 1 ? 340 : 460,
      height: 300,
      layer: [
        { mark: { type: "point", filled: true, size: 40, opacity: 0.55 }, encoding: { x, y, color: colour } },
        {
          mark: { type: "point", shape: "diamond", filled: true, size: 240, stroke: "#222", strokeWidth: 1.2, opacity: 1 },
          encoding: { x: { ...x, aggregate: "mean" }, y: { ...y, aggregate: "mean" }, color: colour },
        },
      ],
    },
    config: CHART_CONFIG,
  };
}
