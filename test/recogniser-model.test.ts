import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMoveCorpus, SENTENCE_CLASSES } from "../src/lexicon/move-corpus.js";
import { recogniserFromSaved, saveShippedRecogniser, shippedRecogniser } from "../src/lexicon/move-recogniser.js";
import { readSavedRecogniser, recogniserKey } from "../src/lexicon/recogniser-model-file.js";
import { DEFAULT_TRAINING } from "../src/lexicon/softmax-classifier.js";
import { temporaryDirectory } from "./helpers/cli.js";

// Sentences the recogniser was not trained on (the held-out voices) and some it was.
const sentences = loadMoveCorpus()
  .flatMap((voice) => SENTENCE_CLASSES.flatMap((label) => (voice.corpus.sentences[label] ?? []).slice(0, 2)))
  .concat(["", "asdf qwer zxcv", "You are pathetic. That sounds so hard.", "我明白你的感受，这真的很难。"]);

describe("the saved move recogniser (the build trains it once; a process loads it)", () => {
  it("a model saved and loaded reads every sentence exactly as the freshly trained one", () => {
    const path = join(temporaryDirectory(), "model.json");
    const key = saveShippedRecogniser(path);
    expect(key).toBe(recogniserKey(DEFAULT_TRAINING));
    const saved = readSavedRecogniser(path, key);
    expect(saved, "the saved model was not read back").toBeDefined();
    const loaded = recogniserFromSaved(saved!);
    const trained = shippedRecogniser();
    expect(loaded.trainedOn).toEqual(trained.trainedOn);
    for (const sentence of sentences) expect(loaded.read(sentence), sentence).toEqual(trained.read(sentence));
    for (const word of ["sounds", "hard", "pathetic", "zxcv", "感受", "难过"])
      expect(loaded.knowsWord(word), word).toBe(trained.knowsWord(word));
  }, 120_000);

  it("a stale key, a torn file or no file is not used (the caller trains)", () => {
    const dir = temporaryDirectory();
    const path = join(dir, "model.json");
    const key = recogniserKey(DEFAULT_TRAINING);
    expect(readSavedRecogniser(path, key)).toBeUndefined();
    writeFileSync(
      path,
      JSON.stringify({
        format: "aeb-move-recogniser/1",
        key: "0".repeat(64),
        trainedOn: [],
        commonFeatures: [],
        classifier: { classCount: 1, vocabulary: [], weights: "", bias: "AAAAAAAAAAA=" },
      }),
    );
    expect(readSavedRecogniser(path, key)).toBeUndefined();
    writeFileSync(path, '{"format": "aeb-move-recogniser/1", "key": "');
    expect(readSavedRecogniser(path, key)).toBeUndefined();
  });

  it("the build saved the model its own code and data train: a built process does not train", () => {
    const dist = join(import.meta.dirname, "..", "dist", "lexicon");
    const script = `import { readSavedRecogniser, recogniserKey, defaultModelPath } from ${JSON.stringify(join(dist, "recogniser-model-file.js"))};
import { DEFAULT_TRAINING } from ${JSON.stringify(join(dist, "softmax-classifier.js"))};
process.stdout.write(readSavedRecogniser(defaultModelPath(), recogniserKey(DEFAULT_TRAINING)) === undefined ? "stale" : "current");`;
    expect(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })).toBe("current");
    expect(JSON.parse(readFileSync(join(dist, "move-recogniser.model.json"), "utf8")).trainedOn.length).toBeGreaterThan(0);
  });
});
