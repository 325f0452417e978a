// The build's last step: trains the offline user's move recogniser once and saves it beside the
// built code (dist/lexicon/move-recogniser.model.bin), so no process trains it at start
// (src/lexicon/recogniser-model-file.ts says what the key covers and how the file is laid out).
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { saveShippedRecogniser } from "../dist/lexicon/move-recogniser.js";
import { defaultModelPath, LEGACY_MODEL_FILE } from "../dist/lexicon/recogniser-model-file.js";

const started = performance.now();
const key = saveShippedRecogniser();
// A build of the former format left its JSON model here; nothing reads it any more.
rmSync(join(dirname(defaultModelPath()), LEGACY_MODEL_FILE), { force: true });
console.log(`saved the move recogniser (key ${key.slice(0, 12)}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
