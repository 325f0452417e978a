import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMoveCorpus, SENTENCE_CLASSES } from "../src/lexicon/move-corpus.js";
import {
  examplesOf,
  recogniserFeatures,
  recogniserFromSaved,
  saveShippedRecogniser,
  shippedRecogniser,
} from "../src/lexicon/move-recogniser.js";
import {
  decodeModel,
  encodeModel,
  LEGACY_MODEL_FILE,
  MODEL_FILE,
  readSavedRecogniser,
  recogniserKey,
  savedRecogniser,
  writeSavedRecogniser,
} from "../src/lexicon/recogniser-model-file.js";
import { DEFAULT_TRAINING, SoftmaxClassifier } from "../src/lexicon/softmax-classifier.js";
import { temporaryDirectory } from "./helpers/cli.js";

// Sentences the recogniser was not trained on (the held-out voices) and some it was.
const sentences = loadMoveCorpus()
  .flatMap((voice) => SENTENCE_CLASSES.flatMap((label) => (voice.corpus.sentences[label] ?? []).slice(0, 2)))
  .concat(["", "asdf qwer zxcv", "You are pathetic. That sounds so hard.", "我明白你的感受，这真的很难。"]);

const bytesOf = (values: Float64Array) => Buffer.from(values.buffer, values.byteOffset, values.byteLength);

/** A small model (one corpus file, one epoch) saved under `key`: the file's checks need a real file, not the shipped model's seconds of training. */
function smallModelFile(key: string): { path: string; bytes: Buffer } {
  const classifier = SoftmaxClassifier.train(examplesOf(loadMoveCorpus().slice(0, 1)), SENTENCE_CLASSES.length, {
    ...DEFAULT_TRAINING,
    epochs: 1,
  });
  const path = join(temporaryDirectory(), MODEL_FILE);
  writeSavedRecogniser(path, savedRecogniser(key, ["en/one.yaml", "zh/二.yaml"], ["W_hard", "C2_感受"], classifier.toSnapshot()));
  return { path, bytes: readFileSync(path) };
}

describe("the saved move recogniser (the build trains it once; a process loads it)", () => {
  it("a model saved and loaded reads every sentence exactly as the freshly trained one", () => {
    const path = join(temporaryDirectory(), MODEL_FILE);
    const key = saveShippedRecogniser(path);
    expect(key).toBe(recogniserKey(DEFAULT_TRAINING));
    const saved = readSavedRecogniser(path, key);
    expect(saved, "the saved model was not read back").toBeDefined();
    // Read back, it is the same bytes again: the weights and bias are the saved float64s, bit for bit.
    expect(encodeModel(saved!).equals(readFileSync(path))).toBe(true);
    const loaded = recogniserFromSaved(saved!);
    const trained = shippedRecogniser();
    expect(loaded.trainedOn).toEqual(trained.trainedOn);
    for (const sentence of sentences) expect(loaded.read(sentence), sentence).toEqual(trained.read(sentence));
    for (const word of ["sounds", "hard", "pathetic", "zxcv", "感受", "难过"])
      expect(loaded.knowsWord(word), word).toBe(trained.knowsWord(word));
  }, 120_000);

  it("a loaded snapshot holds the trained weights, bias, vocabulary and common features exactly", () => {
    const key = "k".repeat(64);
    const classifier = SoftmaxClassifier.train(examplesOf(loadMoveCorpus().slice(0, 2)), SENTENCE_CLASSES.length, {
      ...DEFAULT_TRAINING,
      epochs: 2,
    });
    const snapshot = classifier.toSnapshot();
    const saved = decodeModel(encodeModel(savedRecogniser(key, ["a.yaml"], ["W_x", "C2_感受"], snapshot)), key)!;
    expect(saved.classifier.classCount).toBe(snapshot.classCount);
    expect(saved.classifier.vocabulary).toEqual(snapshot.vocabulary);
    expect(bytesOf(saved.classifier.weights).equals(bytesOf(snapshot.weights))).toBe(true);
    expect(bytesOf(saved.classifier.bias).equals(bytesOf(snapshot.bias))).toBe(true);
    expect(saved.commonFeatures).toEqual(["W_x", "C2_感受"]);
    expect(saved.trainedOn).toEqual(["a.yaml"]);
    const reloaded = SoftmaxClassifier.fromSnapshot(saved.classifier);
    for (const sentence of sentences.slice(0, 200)) {
      const features = recogniserFeatures(sentence);
      expect([...reloaded.predict(features).probabilities]).toEqual([...classifier.predict(features).probabilities]);
    }
  });

  it("a stale key, a torn or corrupted file, the former JSON format or no file is not used (the caller trains)", () => {
    const key = recogniserKey(DEFAULT_TRAINING);
    const { path, bytes } = smallModelFile(key);
    expect(readSavedRecogniser(path, key), "the intact file").toBeDefined();
    expect(readSavedRecogniser(join(temporaryDirectory(), MODEL_FILE), key), "no file").toBeUndefined();
    expect(readSavedRecogniser(path, "0".repeat(64)), "another key").toBeUndefined();

    const header = bytes.indexOf(0x0a);
    const used = (file: Buffer) => {
      writeFileSync(path, file);
      return readSavedRecogniser(path, key) !== undefined;
    };
    // Torn anywhere: in the header line, just after it, in the vocabulary's part, in the weights' part, one byte short.
    for (const length of [
      0,
      1,
      Math.floor(header / 2),
      header,
      header + 1,
      header + 40,
      Math.floor((header + bytes.length) / 2),
      bytes.length - 1,
    ])
      expect(used(bytes.subarray(0, length)), `torn at ${length} of ${bytes.length}`).toBe(false);
    // One byte changed: in the header's key, in the vocabulary's part, in the weights' part (gzip's CRC-32), in the last byte (its length).
    for (const at of [20, header + 30, Math.floor((header + bytes.length) / 2), bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] as number) ^ 0x5a;
      expect(used(changed), `byte ${at} changed`).toBe(false);
    }
    expect(used(Buffer.concat([bytes, Buffer.from("extra")])), "bytes after the weights").toBe(false);
    // A header that claims far more weights than its part can hold is rejected before anything is inflated.
    const claims = JSON.parse(bytes.toString("utf8", 0, header)) as Record<string, unknown>;
    const inflated = Buffer.from(`${JSON.stringify({ ...claims, features: 1e9 })}\n`);
    expect(used(Buffer.concat([inflated, bytes.subarray(header + 1)])), "a header claiming a billion features").toBe(false);
    // The former format (one JSON document, weights in base64) is not this format.
    const legacy = JSON.stringify({
      format: "aeb-move-recogniser/1",
      key,
      trainedOn: [],
      commonFeatures: [],
      classifier: { classCount: 1, vocabulary: [], weights: "", bias: "AAAAAAAAAAA=" },
    });
    expect(used(Buffer.from(legacy)), "the JSON format").toBe(false);
    expect(used(Buffer.from('{"format": "aeb-move-recogniser/2", "key": "')), "a torn header").toBe(false);
    expect(used(bytes), "the intact file again").toBe(true);
  });

  it("the build saved the model its own code and data train: a built process does not train", () => {
    const dist = join(import.meta.dirname, "..", "dist", "lexicon");
    const script = `import { readSavedRecogniser, recogniserKey, defaultModelPath } from ${JSON.stringify(join(dist, "recogniser-model-file.js"))};
import { DEFAULT_TRAINING } from ${JSON.stringify(join(dist, "softmax-classifier.js"))};
process.stdout.write(readSavedRecogniser(defaultModelPath(), recogniserKey(DEFAULT_TRAINING)) === undefined ? "stale" : "current");`;
    expect(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })).toBe("current");
    const file = readFileSync(join(dist, MODEL_FILE));
    expect((JSON.parse(file.toString("utf8", 0, file.indexOf(0x0a))) as { trainedOn: string[] }).trainedOn.length).toBeGreaterThan(0);
    // Small enough for a fresh clone's build (the former JSON file was 15 MB), and the former file is gone.
    expect(statSync(join(dist, MODEL_FILE)).size).toBeLessThan(8 * 1024 * 1024);
    expect(existsSync(join(dist, LEGACY_MODEL_FILE))).toBe(false);
  });
});
