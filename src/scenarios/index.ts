export * from "./scenario-schema.js";
export * from "./load-scenarios.js";
export * from "./type-defaults.js";
