import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { dataPath } from "../core/data-files.js";
import type { ClassifierSnapshot } from "./softmax-classifier.js";

/**
 * The shipped recogniser, trained once by the build and saved beside the built code.
 *
 * Training on the shipped corpus takes seconds (about 8,000 sentences, 30 epochs), and every
 * process that plays the offline user needs it: each `aeb run`, each `aeb serve` worker and each of
 * its step threads, each probe. The build (`npm run build`: scripts/save-recogniser.mjs) saves the
 * trained model as `move-recogniser.model.json` in dist/lexicon/; a process loads it in
 * milliseconds when its key matches, and trains otherwise. The key is a SHA-256 of everything the
 * model depends on: the corpus and lexicon files (data/move-corpus/, data/lexicon/), the code of
 * this folder and core/random (features, stemming, the classifier, its seed), and the training
 * options. An edited corpus, an edited feature, or a stale file therefore retrains; a loaded model
 * predicts the same numbers, bit for bit, as a freshly trained one (test/recogniser-model.test.ts).
 */

export const MODEL_FILE = "move-recogniser.model.json";
const MODEL_FORMAT = "aeb-move-recogniser/1";

/** The saved model: the classifier and the common features `knowsWord` asks about. */
export interface SavedRecogniser {
  format: typeof MODEL_FORMAT;
  key: string;
  trainedOn: string[];
  commonFeatures: string[];
  classifier: ClassifierSnapshot;
}

const SavedRecogniserSchema = z.object({
  format: z.literal(MODEL_FORMAT),
  key: z.string(),
  trainedOn: z.array(z.string()),
  commonFeatures: z.array(z.string()),
  classifier: z.object({ classCount: z.number().int().positive(), vocabulary: z.array(z.string()), weights: z.string(), bias: z.string() }),
});

/** Where the build saves the model: beside this module (dist/lexicon/ when built). */
export function defaultModelPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), MODEL_FILE);
}

/** The key of the model these data, this code and these options train (see the module comment). */
export function recogniserKey(trainingOptions: unknown): string {
  const hash = createHash("sha256");
  hash.update(`${MODEL_FORMAT}\n${JSON.stringify(trainingOptions)}\n`);
  const add = (root: string, path: string) => {
    hash.update(`${relative(root, path)}\n`);
    hash.update(readFileSync(path));
  };
  for (const root of [dataPath("move-corpus"), dataPath("lexicon")]) for (const path of filesUnder(root)) add(root, path);
  const here = dirname(fileURLToPath(import.meta.url));
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const code = readdirSync(here)
    .filter((name) => name.endsWith(extension) && !name.endsWith(`.test${extension}`))
    .sort()
    .map((name) => join(here, name));
  code.push(join(here, "..", "core", `random${extension}`));
  for (const path of code) add(dirname(here), path);
  return hash.digest("hex");
}

/** The model saved at `path` when it was trained for `key`; undefined when absent, stale or unreadable (then the caller trains). */
export function readSavedRecogniser(path: string, key: string): SavedRecogniser | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = SavedRecogniserSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success && parsed.data.key === key ? parsed.data : undefined;
  } catch {
    // A torn or hand-edited file is only a cache: training gives the same model.
    return undefined;
  }
}

/** Writes the model (through a temporary file, so a reader never sees half of it). */
export function writeSavedRecogniser(path: string, model: SavedRecogniser): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(model)}\n`);
  renameSync(temporary, path);
}

export function savedRecogniser(
  key: string,
  trainedOn: string[],
  commonFeatures: string[],
  classifier: ClassifierSnapshot,
): SavedRecogniser {
  return { format: MODEL_FORMAT, key, trainedOn, commonFeatures, classifier };
}

function filesUnder(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk(root);
  return files;
}
