// Rewrites the figures docs/ quotes from what the built package computes (`npm run docs:tables`):
// the gaming agents' FS in docs/offline-user.md. test/gaming-agents.test.ts fails when they are stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gamingAgentScores, withGamingScores } from "../dist/runner/doc-tables.js";

const path = join(import.meta.dirname, "..", "docs", "offline-user.md");
const scores = await gamingAgentScores();
writeFileSync(path, withGamingScores(readFileSync(path, "utf8"), scores));
console.log(
  `wrote docs/offline-user.md: ${Object.entries(scores)
    .map(([id, fs]) => `${id} ${fs.toFixed(3)}`)
    .join(", ")}`,
);
