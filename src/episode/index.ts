export * from "./episode-state.js";
export * from "./end-rules.js";
export * from "./step.js";
export { StepError, type StageTiming, type StepStage } from "./dialogue-error.js";
