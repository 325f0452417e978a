export * from "./episode-state.js";
export * from "./end-rules.js";
export * from "./step.js";
