export * from "./detector.js";
export * from "./formulaic-comfort.js";
export * from "./repetition.js";
export * from "./injection.js";
export * from "./empty-reply.js";
export * from "./adjustments.js";
export * from "./reward-mode.js";
