export * from "./sage-results.js";
export * from "./import-sage.js";
export * from "./leaderboard.js";
export * from "./sage-replay.js";
export * from "./simulated-users.js";
export * from "./agreement-sources.js";
