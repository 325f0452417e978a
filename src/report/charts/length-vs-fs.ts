import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { conditionOrder, dialoguePoints, scoredRows } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { groupMeans, sampleDialogueIds, type PointSample } from "./point-sample.js";
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
  const values = dialoguePoints(rows);
  if (values.length === 0) return placeholderSpec("no scored dialogues", "every dialogue of this run ended in error");
  const colour = { field: "condition", type: "nominal" as const, scale: conditionScale(conditionOrder(summary, rows)), title: "condition" };
  const x = { field: "replyChars", type: "quantitative" as const, title: "mean reply length (characters)", scale: { zero: true } };
  const y = { field: "fs", type: "quantitative" as const, title: "FS", scale: { domain: [0, 1] } };
  const { ids } = sample;
  if (ids !== undefined) {
    const drawn = values.filter((value) => ids.has(value.id)).map((value) => ({ ...value, mark: "dialogue" }));
    const means = groupMeans(values, ["condition"], ["fs", "replyChars"]).map((mean) => ({ ...mean, mark: "mean" }));
    return {
      width: 520,
      height: 280,
      data: { values: [...drawn, ...means] },
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
