export * from "./dialogue-metrics.js";
export * from "./condition-summary.js";
