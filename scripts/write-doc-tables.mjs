// Rewrites the figures and tables docs/ quotes from what the built package computes (`npm run docs:tables`):
// the table of `aeb serve`'s settings and defaults in docs/server.md (test/http-foundation.test.ts fails when
// it is stale), and the gaming agents' FS in docs/offline-user.md (test/gaming-agents.test.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gamingAgentScores, withGamingScores } from "../dist/runner/doc-tables.js";
import { serverDefaultsTable } from "../dist/server/server-options.js";

const docs = join(import.meta.dirname, "..", "docs");

const serverDoc = join(docs, "server.md");
const markers = /(<!-- server-defaults:start[^>]*-->\n)[\s\S]*?(<!-- server-defaults:end -->)/;
const before = readFileSync(serverDoc, "utf8");
if (!markers.test(before)) throw new Error("docs/server.md has no <!-- server-defaults:start --> ... <!-- server-defaults:end --> block");
writeFileSync(
  serverDoc,
  before.replace(markers, (_match, start, end) => `${start}${serverDefaultsTable()}\n${end}`),
);
console.log("wrote docs/server.md: the table of aeb serve's settings and defaults");

const offlineDoc = join(docs, "offline-user.md");
const scores = await gamingAgentScores();
writeFileSync(offlineDoc, withGamingScores(readFileSync(offlineDoc, "utf8"), scores));
console.log(
  `wrote docs/offline-user.md: ${Object.entries(scores)
    .map(([id, fs]) => `${id} ${fs.toFixed(3)}`)
    .join(", ")}`,
);
