// Writes schemas/*.schema.json from the zod schemas of the built package (`npm run schemas`).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonSchemaTexts } from "../dist/runner/json-schemas.js";

const dir = join(import.meta.dirname, "..", "schemas");
mkdirSync(dir, { recursive: true });
for (const [file, text] of jsonSchemaTexts()) {
  writeFileSync(join(dir, file), text);
  console.log(`wrote schemas/${file}`);
}
