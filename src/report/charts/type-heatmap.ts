import type { TopLevelSpec } from "vega-lite";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { typeOrder } from "./chart-data.js";
import { placeholderSpec } from "./placeholder.js";
import { CHART_CONFIG } from "./theme.js";

/**
 * (b) Condition x trajectory type heatmap of mean FS (from summary.json `byType`), the value
 * written in each cell. The colour scale is fixed to [0, 1] so runs can be compared by eye.
 */
export function typeHeatmapSpec(summary: RunSummary): TopLevelSpec {
  const values = summary.conditions.flatMap((condition) =>
    Object.entries(condition.byType).map(([type, cell]) => ({
      condition: condition.name,
      type,
      fs: cell.fsMean,
      n: cell.n,
      label: cell.fsMean === null ? "n/a" : cell.fsMean.toFixed(2),
    })),
  );
  if (values.length === 0) return placeholderSpec("no scored dialogues", "every dialogue of this run ended in error");
  const types = typeOrder(values.map((value) => value.type));
  const conditions = summary.conditions
    .map((condition) => condition.name)
    .filter((name) => values.some((value) => value.condition === name));
  return {
    width: { step: 96 },
    height: { step: 30 },
    data: { values },
    encoding: {
      x: {
        field: "type",
        type: "nominal",
        sort: types,
        title: "trajectory type",
        axis: {
          orient: "bottom",
          labelAngle: 0,
          labelExpr: "split(replace(datum.label, /_/g, ' '), ' ')",
          labelLineHeight: 12,
          ticks: false,
          domain: false,
        },
      },
      y: { field: "condition", type: "nominal", sort: conditions, title: null, axis: { ticks: false, domain: false } },
    },
    layer: [
      {
        mark: { type: "rect", stroke: "white", strokeWidth: 1 },
        encoding: {
          color: {
            field: "fs",
            type: "quantitative",
            scale: { scheme: "viridis", domain: [0, 1] },
            title: "mean FS",
            legend: { gradientLength: 120 },
          },
        },
      },
      {
        mark: { type: "text", fontSize: 12, fontWeight: "bold" },
        encoding: {
          text: { field: "label" },
          color: { condition: { test: "datum.fs < 0.55", value: "white" }, value: "#111" },
        },
      },
    ],
    config: CHART_CONFIG,
  };
}
