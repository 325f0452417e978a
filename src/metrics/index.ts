export * from "./dialogue-metrics.js";
export * from "./condition-summary.js";
export * from "./dialogue-row.js";
