export * from "./api-schemas.js";
export * from "./environment-error.js";
export * from "./state-token.js";
export * from "./environment.js";
export * from "./session-store.js";
export * from "./metrics.js";
export * from "./delayed-user.js";
export * from "./app.js";
