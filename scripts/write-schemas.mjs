// Writes schemas/*.schema.json and docs/config-reference.md from the zod schemas of the built
// package (`npm run schemas`); test/json-schemas.test.ts fails when either is stale.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonSchemaTexts } from "../dist/runner/json-schemas.js";
import { configReferenceMarkdown } from "../dist/runner/config-reference.js";

const dir = join(import.meta.dirname, "..", "schemas");
mkdirSync(dir, { recursive: true });
for (const [file, text] of jsonSchemaTexts()) {
  writeFileSync(join(dir, file), text);
  console.log(`wrote schemas/${file}`);
}
writeFileSync(join(import.meta.dirname, "..", "docs", "config-reference.md"), configReferenceMarkdown());
console.log("wrote docs/config-reference.md");
