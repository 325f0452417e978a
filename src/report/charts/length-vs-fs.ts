import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { conditionOrder, forEachDialoguePoint, scoredRows, type DialoguePoint } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { GroupMeans, sampleDialogueIds, type PointSample } from "./point-sample.js";
import { CHART_CONFIG, conditionScale } from "./theme.js";

/**
 * (f) Mean visible reply length (characters) against FS, one point per scored dialogue, coloured
 * by condition; a diamond marks each condition's mean. A length confound shows as conditions
 * lined up along the length axis with FS rising with it. Above a few thousand dialogues the points
 * are a fixed sample (point-sample.ts) and the diamonds the means over every dialogue.
 */
export function lengthVsFsSpec(
  summary: RunSummary,
  rows: readonly DialogueRow[],
  sample: PointSample = sampleDialogueIds(scoredRows(rows), summary.seed),
): TopLevelSpec {
  const { ids } = sample;
  // Every dialogue's point is kept only where drawn; the condition means are taken as the points pass.
  const values: DialoguePoint[] = [];
  const means = new GroupMeans<DialoguePoint>(["condition"], ["fs", "replyChars"]);
  let pointCount = 0;
  forEachDialoguePoint(rows, (point) => {
    pointCount += 1;
    if (ids !== undefined) means.add(point);
    if (ids === undefined || ids.has(point.id)) values.push(point);
  });
  if (pointCount === 0) return placeholderSpec("no scored dialogues", "every dialogue of this run ended in error");
  const colour = { field: "condition", type: "nominal" as const, scale: conditionScale(conditionOrder(summary, rows)), title: "condition" };
  const x = { field: "replyChars", type: "quantitative" as const, title: "mean reply length (characters)", scale: { zero: true } };
  const y = { field: "fs", type: "quantitative" as const, title: "FS", scale: { domain: [0, 1] } };
  if (ids !== undefined) {
    const drawn = values.map((value) => ({ ...value, mark: "dialogue" }));
    const meanMarks = means.means().map((mean) => ({ ...mean, mark: "mean" }));
    return {
      width: 520,
      height: 280,
      data: { values: [...drawn, ...meanMarks] },
      layer: [
        {
          transform: [{ filter: "datum.mark === 'dialogue'" }],
          mark: { type: "point", filled: true, size: 36, opacity: 0.55 },
          encoding: { x, y, color: colour },
        },
        {
          transform: [{ filter: "datum.mark === 'mean'" }],
          mark: { type: "point", shape: "diamond", filled: true, size: 220, stroke: "#222", strokeWidth: 1.2, opacity: 1 },
          encoding: { x, y, color: colour },
        },
      ],
      config: CHART_CONFIG,
    };
  }
  return {
    width: 520,
    height: 280,
    data: { values },
    layer: [
      { mark: { type: "point", filled: true, size: 36, opacity: 0.55 }, encoding: { x, y, color: colour } },
      {
        mark: { type: "point", shape: "diamond", filled: true, size: 220, stroke: "#222", strokeWidth: 1.2, opacity: 1 },
        encoding: { x: { ...x, aggregate: "mean" }, y: { ...y, aggregate: "mean" }, color: colour },
      },
    ],
    config: CHART_CONFIG,
  };
}
