import type { TopLevelSpec } from "vega-lite";
import { CHART_CONFIG } from "./theme.js";

/**
 * A panel that says why there is no chart (e.g. "no ECS judge ran"), drawn as a chart itself so
 * the report's layout and its browser check treat it like any other figure.
 */
export function placeholderSpec(message: string, detail?: string): TopLevelSpec {
  // Without a canvas Vega estimates text widths generously; size the panel so the text fits inside it.
  const width = Math.max(520, Math.ceil(Math.max(message.length * 18, (detail ?? "").length * 12) * 0.85) + 40);
  const height = 110;
  return {
    width,
    height,
    data: { values: [{ message, detail: detail ?? "" }] },
    layer: [
      {
        mark: { type: "text", align: "center", baseline: "middle", fontSize: 18, color: "#444" },
        encoding: {
          x: { value: width / 2 },
          y: { value: detail === undefined ? height / 2 : height / 2 - 10 },
          text: { field: "message" },
        },
      },
      ...(detail === undefined
        ? []
        : [
            {
              mark: { type: "text" as const, align: "center" as const, baseline: "middle" as const, fontSize: 12, color: "#777" },
              encoding: { x: { value: width / 2 }, y: { value: height / 2 + 14 }, text: { field: "detail" } },
            },
          ]),
    ],
    config: CHART_CONFIG,
  };
}
