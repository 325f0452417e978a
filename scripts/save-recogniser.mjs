// The build's last step: trains the offline user's move recogniser once and saves it beside the
// built code (dist/lexicon/move-recogniser.model.json), so no process trains it at start
// (src/lexicon/recogniser-model-file.ts says what the key covers).
import { performance } from "node:perf_hooks";
import { saveShippedRecogniser } from "../dist/lexicon/move-recogniser.js";

const started = performance.now();
const key = saveShippedRecogniser();
console.log(`saved the move recogniser (key ${key.slice(0, 12)}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
