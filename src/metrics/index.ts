export * from "./dialogue-metrics.js";

export * from "./dialogue-row.js";
