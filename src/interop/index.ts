export * from "./sage-results.js";
export * from "./import-sage.js";
export * from "./leaderboard.js";
export * from "./sage-replay.js";
