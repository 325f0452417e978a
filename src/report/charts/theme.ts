import type { Config } from "vega-lite";

/** Text shown in place of a chart that has nothing to plot (a test looks for it). */
export const NO_ECS_MESSAGE = "no ECS judge ran";

/**
 * Condition colours: Tableau 10 then the lighter half of Tableau 20. Every chart maps the
 * conditions in the summary's order onto this list, so a condition has one colour throughout.
 */
export const CONDITION_COLOURS = [
  "#4c78a8",
  "#f58518",
  "#e45756",
  "#72b7b2",
  "#54a24b",
  "#eeca3b",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
  "#9ecae9",
  "#ffbf79",
  "#ff9d98",
  "#88d27a",
  "#83bcb6",
  "#f2cf5b",
  "#d6a5c9",
  "#fcbfd2",
  "#d8b5a5",
  "#79706e",
];

/** The colour scale for conditions (cycled when there are more than 20). */
export function conditionScale(conditions: readonly string[]): { domain: string[]; range: string[] } {
  return {
    domain: [...conditions],
    range: conditions.map((_, index) => CONDITION_COLOURS[index % CONDITION_COLOURS.length] as string),
  };
}

/** Shared look: generic fonts only (the report loads nothing), quiet grid, readable sizes. */
export const CHART_CONFIG: Config = {
  font: "sans-serif",
  background: "white",
  padding: 8,
  view: { stroke: "#ddd" },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: "#eee", labelLimit: 220 },
  // Legend symbols fully opaque: a layer drawn half-transparent (overlapping points) would otherwise give faint swatches.
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 200, symbolOpacity: 1 },
  header: { labelFontSize: 11, titleFontSize: 12, labelLimit: 160 },
  title: { fontSize: 14, anchor: "start", subtitleFontSize: 11, subtitleColor: "#555" },
};
