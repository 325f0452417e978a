import type { TopLevelSpec } from "vega-lite";
import type { DialogueRow } from "../../metrics/dialogue-row.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { conditionOrder, emotionTrajectories } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { CHART_CONFIG, conditionScale } from "./theme.js";

/**
 * (c) Mean emotion per condition after each agent reply (step 0 = the opening), dialogues that
 * ended early carried forward at their final emotion, with a ±1.96 SE band (see chart-data.ts).
 */
export function emotionTrajectorySpec(summary: RunSummary, rows: readonly DialogueRow[]): TopLevelSpec {
  const conditions = conditionOrder(summary, rows);
  const values = emotionTrajectories(rows, conditions);
  if (values.length === 0) return placeholderSpec("no scored dialogues", "every dialogue of this run ended in error");
  const steps = Math.max(...values.map((value) => value.step));
  // One legend for both layers, drawn as the lines are: Vega-Lite merges the layers' legends, and
  // without these properties it takes the band's faint area symbol (a legend of null on the band
  // layer removes the legend altogether).
  const colour = {
    field: "condition",
    type: "nominal" as const,
    scale: conditionScale(conditions),
    title: "condition",
    legend: { symbolType: "stroke", symbolOpacity: 1, symbolStrokeWidth: 2.5, symbolSize: 200 },
  };
  const x = {
    field: "step",
    type: "quantitative" as const,
    scale: { domain: [0, Math.max(1, steps)], nice: false },
    axis: { tickMinStep: 1, format: "d", values: Array.from({ length: steps + 1 }, (_, step) => step) },
    title: "agent replies so far (0 = the user's opening)",
  };
  return {
    width: 520,
    height: 280,
    data: { values },
    layer: [
      {
        transform: [{ filter: "datum.low !== null" }],
        mark: { type: "area", opacity: 0.14 },
        encoding: {
          x,
          y: { field: "low", type: "quantitative", scale: { domain: [0, 100] }, title: "emotion (0-100)" },
          y2: { field: "high" },
          color: colour,
        },
      },
      {
        mark: { type: "line", strokeWidth: 2, point: { filled: true, size: 30 } },
        encoding: { x, y: { field: "mean", type: "quantitative", scale: { domain: [0, 100] }, title: "emotion (0-100)" }, color: colour },
      },
    ],
    config: CHART_CONFIG,
  };
}
