export * from "./lexicon.js";
export * from "./content-words.js";
export * from "./detect-moves.js";
export * from "./injection-patterns.js";
export * from "./text-similarity.js";
