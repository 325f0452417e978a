import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { endianness } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import { dataPath } from "../core/data-files.js";
import type { ClassifierSnapshot } from "./softmax-classifier.js";

/**
 * The shipped recogniser, trained once by the build and saved beside the built code.
 *
 * Training on the shipped corpus takes seconds (about 8,000 sentences, 30 epochs), and every
 * process that plays the offline user needs it: each `aeb run`, each `aeb serve` worker and each of
 * its step threads, each probe. The build (`npm run build`: scripts/save-recogniser.mjs) saves the
 * trained model as `move-recogniser.model.bin` in dist/lexicon/; a process loads it in
 * milliseconds when its key matches, and trains otherwise. The key is a SHA-256 of everything the
 * model depends on: the corpus, lexicon and word-cluster files (data/move-corpus/, data/lexicon/,
 * data/word-clusters/), the code of
 * this folder and core/random (features, stemming, the classifier, its seed), and the training
 * options. An edited corpus, an edited feature, or a stale file therefore retrains; a loaded model
 * predicts the same numbers, bit for bit, as a freshly trained one (test/recogniser-model.test.ts).
 *
 * The file (about 4.6 MB) is three parts, so that loading it never holds more than a small
 * multiple of the weights' own 11 MB (the earlier JSON file, with the weights in base64, was read
 * as one 15 MB string, parsed and validated into copies and decoded: about 80 MB at once):
 * 1. one line of JSON, the {@link ModelHeader}: the format, the key, the sizes, and the byte
 *    lengths of the two parts after it. A stale key is rejected on this line alone.
 * 2. gzip of the JSON `{"vocabulary": [...], "commonFeatures": [...]}` (about 0.2 MB).
 * 3. gzip of the bias then the weights, as little-endian float64 (11 MB inflated), inflated into
 *    one buffer of their size that the classifier then reads in place (no copy on a
 *    little-endian machine).
 * gzip's CRC-32 and length check each part, so a torn or corrupted file is rejected (and the
 * caller trains), never read as other weights.
 */

export const MODEL_FILE = "move-recogniser.model.bin";
/** The JSON file of format 1, which builds before this one wrote (scripts/save-recogniser.mjs removes it). */
export const LEGACY_MODEL_FILE = "move-recogniser.model.json";
const MODEL_FORMAT = "aeb-move-recogniser/2";
/** The header line is small (the corpus file names); a file whose first line is longer is not a model. */
const HEADER_LIMIT = 64 * 1024;
const LITTLE_ENDIAN = endianness() === "LE";

/** The saved model: the classifier and the common features `knowsWord` asks about. */
export interface SavedRecogniser {
  format: typeof MODEL_FORMAT;
  key: string;
  trainedOn: string[];
  commonFeatures: string[];
  classifier: ClassifierSnapshot;
}

/** The file's first line. */
const ModelHeaderSchema = z.object({
  format: z.literal(MODEL_FORMAT),
  key: z.string(),
  trainedOn: z.array(z.string()),
  classCount: z.number().int().positive(),
  /** Vocabulary size: the weights are features x classCount. */
  features: z.number().int().nonnegative(),
  commonFeatures: z.number().int().nonnegative(),
  /** Byte lengths of the two gzip parts after the line, and of the first one inflated. */
  textBytes: z.number().int().positive(),
  textLength: z.number().int().positive(),
  floatBytes: z.number().int().positive(),
});
type ModelHeader = z.infer<typeof ModelHeaderSchema>;

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
  for (const root of [dataPath("move-corpus"), dataPath("lexicon"), dataPath("word-clusters")])
    for (const path of filesUnder(root)) add(root, path);
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
    return decodeModel(readFileSync(path), key);
  } catch {
    // A torn or corrupted file (gzip's check fails, or a part is short) is only a cache: training gives the same model.
    return undefined;
  }
}

/** Writes the model (through a temporary file, so a reader never sees half of it). */
export function writeSavedRecogniser(path: string, model: SavedRecogniser): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, encodeModel(model));
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

/** The file's bytes (see the module comment). The same model gives the same bytes. */
export function encodeModel(model: SavedRecogniser): Buffer {
  const { classifier } = model;
  if (
    classifier.bias.length !== classifier.classCount ||
    classifier.weights.length !== classifier.vocabulary.length * classifier.classCount
  )
    throw new Error("a classifier snapshot's sizes do not agree");
  const textJson = Buffer.from(JSON.stringify({ vocabulary: classifier.vocabulary, commonFeatures: model.commonFeatures }), "utf8");
  const text = gzipSync(textJson, { level: 9 });
  const floats = Buffer.allocUnsafe((classifier.bias.length + classifier.weights.length) * 8);
  writeFloat64s(floats, 0, classifier.bias);
  writeFloat64s(floats, classifier.bias.length * 8, classifier.weights);
  const floatPart = gzipSync(floats, { level: 9 });
  const header: ModelHeader = {
    format: MODEL_FORMAT,
    key: model.key,
    trainedOn: model.trainedOn,
    classCount: classifier.classCount,
    features: classifier.vocabulary.length,
    commonFeatures: model.commonFeatures.length,
    textBytes: text.length,
    textLength: textJson.length,
    floatBytes: floatPart.length,
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, "utf8"), text, floatPart]);
}

/**
 * The model in `file` when it was trained for `key`; undefined when the file is not a model of this
 * format or is stale. Throws when a part is torn or corrupt (gzip's check) or disagrees with the header.
 */
export function decodeModel(file: Buffer, key: string): SavedRecogniser | undefined {
  const newline = file.subarray(0, HEADER_LIMIT).indexOf(0x0a);
  if (newline < 0) return undefined;
  let headerJson: unknown;
  try {
    headerJson = JSON.parse(file.toString("utf8", 0, newline));
  } catch {
    return undefined;
  }
  const parsed = ModelHeaderSchema.safeParse(headerJson);
  if (!parsed.success || parsed.data.key !== key) return undefined;
  const header = parsed.data;
  const textStart = newline + 1;
  const floatStart = textStart + header.textBytes;
  if (floatStart + header.floatBytes !== file.length)
    throw new Error(`the model file is ${file.length} bytes, its header says ${floatStart + header.floatBytes}`);

  // gzip inflates at most about 1,032 bytes per byte: larger sizes in the header are not this file's.
  const floatCount = header.classCount * (1 + header.features);
  if (header.textLength > header.textBytes * 1100 || floatCount * 8 > header.floatBytes * 1100)
    throw new Error("the model's header gives sizes its parts cannot inflate to");
  const textBytes = inflate(file.subarray(textStart, floatStart), header.textLength);
  if (textBytes.length !== header.textLength)
    throw new Error(`the model's vocabulary is ${textBytes.length} bytes, not ${header.textLength}`);
  const text: unknown = JSON.parse(textBytes.toString("utf8"));
  const vocabulary = stringsAt(text, "vocabulary", header.features);
  const commonFeatures = stringsAt(text, "commonFeatures", header.commonFeatures);

  const floats = inflate(file.subarray(floatStart), floatCount * 8);
  if (floats.length !== floatCount * 8) throw new Error(`the model's weights are ${floats.length} bytes, not ${floatCount * 8}`);
  return {
    format: MODEL_FORMAT,
    key: header.key,
    trainedOn: header.trainedOn,
    commonFeatures,
    classifier: {
      classCount: header.classCount,
      vocabulary,
      bias: float64sAt(floats, 0, header.classCount),
      weights: float64sAt(floats, header.classCount * 8, header.classCount * header.features),
    },
  };
}

/**
 * Inflates one gzip part into a single buffer of at most `limit` bytes: the output chunk is the
 * expected size, so zlib writes into it once (no chunks to concatenate: the weights are never held twice).
 */
function inflate(part: Buffer, limit: number): Buffer {
  return gunzipSync(part, { chunkSize: Math.max(64 * 1024, limit + 64), maxOutputLength: Math.max(1, limit) });
}

/** `text[field]`, checked to be an array of `count` strings (checked in place: the array is not copied). */
function stringsAt(text: unknown, field: string, count: number): string[] {
  const value = typeof text === "object" && text !== null ? (text as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(value) || value.length !== count) throw new Error(`the model's ${field} is not ${count} entries`);
  for (const entry of value as unknown[]) if (typeof entry !== "string") throw new Error(`the model's ${field} holds a non-string`);
  return value as string[];
}

/** `count` little-endian float64s at `offset` of `bytes`: a view when the machine is little-endian and the offset aligned, else a copy. */
function float64sAt(bytes: Buffer, offset: number, count: number): Float64Array {
  const start = bytes.byteOffset + offset;
  if (LITTLE_ENDIAN && start % 8 === 0) return new Float64Array(bytes.buffer, start, count);
  const view = new DataView(bytes.buffer, start, count * 8);
  const values = new Float64Array(count);
  for (let index = 0; index < count; index += 1) values[index] = view.getFloat64(index * 8, true);
  return values;
}

function writeFloat64s(into: Buffer, offset: number, values: Float64Array): void {
  if (LITTLE_ENDIAN) {
    into.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), offset);
    return;
  }
  for (let index = 0; index < values.length; index += 1) into.writeDoubleLE(values[index] as number, offset + index * 8);
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
