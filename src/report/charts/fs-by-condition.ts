import type { TopLevelSpec } from "vega-lite";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { fixed } from "../format.js";
import { placeholderSpec } from "./placeholder.js";
import { CHART_CONFIG, conditionScale } from "./theme.js";

/**
 * (a) Mean FS per condition with its seeded percentile-bootstrap 95% CI (from summary.json).
 * A condition with too few dialogues for an interval shows its mean and says "no CI".
 */
export function fsByConditionSpec(summary: RunSummary): TopLevelSpec {
  const conditions = summary.conditions.filter((condition) => condition.n > 0);
  if (conditions.length === 0) return placeholderSpec("no scored dialogues", "every dialogue of this run ended in error");
  const values = conditions.map((condition) => ({
    condition: condition.name,
    mean: condition.fs.mean,
    low: condition.fs.ci95?.[0] ?? null,
    high: condition.fs.ci95?.[1] ?? null,
    label:
      condition.fs.ci95 === null
        ? `${fixed(condition.fs.mean)}  (n=${condition.n}: no CI)`
        : `${fixed(condition.fs.mean)}  [${fixed(condition.fs.ci95[0])}, ${fixed(condition.fs.ci95[1])}]  n=${condition.n}`,
  }));
  const names = values.map((value) => value.condition);
  const colour = {
    field: "condition",
    type: "nominal" as const,
    scale: conditionScale(summary.conditions.map((condition) => condition.name)),
    legend: null,
  };
  const x = { type: "quantitative" as const, scale: { domain: [0, 1] }, title: "FS (final emotion / 100)" };
  return {
    width: 440,
    height: { step: 30 },
    data: { values },
    encoding: { y: { field: "condition", type: "nominal", sort: names, title: null } },
    layer: [
      {
        transform: [{ filter: "datum.low !== null" }],
        mark: { type: "rule", strokeWidth: 2.5 },
        encoding: { x: { field: "low", ...x }, x2: { field: "high" }, color: colour },
      },
      {
        transform: [{ filter: "datum.low !== null" }],
        mark: { type: "tick", thickness: 2, size: 12, orient: "vertical" },
        encoding: { x: { field: "low", ...x }, color: colour },
      },
      {
        transform: [{ filter: "datum.low !== null" }],
        mark: { type: "tick", thickness: 2, size: 12, orient: "vertical" },
        encoding: { x: { field: "high", ...x }, color: colour },
      },
      { mark: { type: "point", filled: true, size: 90, opacity: 1 }, encoding: { x: { field: "mean", ...x }, color: colour } },
      {
        mark: { type: "text", align: "left", dx: 12, fontSize: 11, color: "#333" },
        encoding: { x: { value: 440 }, text: { field: "label" } },
      },
    ],
    config: CHART_CONFIG,
  };
}
