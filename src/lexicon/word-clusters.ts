import { readFileSync } from "node:fs";
import { dataPath } from "../core/data-files.js";
import { AebError } from "../core/errors.js";

/**
 * English words grouped by meaning (data/word-clusters/en.tsv, derived from GloVe word vectors by
 * scripts/derive-word-clusters.py): the move recogniser reads each word's cluster as a feature, so a
 * word its training corpus never used ("despicable") is heard through the words of its cluster that it
 * did ("disgraceful", "shameful"). docs/offline-user.md, "Hearing moves".
 */
export type WordClusters = ReadonlyMap<string, string>;

export const WORD_CLUSTERS_PATH = dataPath("word-clusters", "en.tsv");

let shipped: WordClusters | undefined;

/** The shipped clusters, read once per process: each lowercase word with its feature (`K_<cluster>`). */
export function shippedWordClusters(): WordClusters {
  shipped ??= readWordClusters(WORD_CLUSTERS_PATH);
  return shipped;
}

/** Reads a clusters file: one `word<TAB>cluster` line per word (lowercase a-z), the cluster a whole number. */
export function readWordClusters(path: string): WordClusters {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AebError(
      `cannot read the word clusters at ${path}: ${(error as Error).message}; reinstall the package or restore data/word-clusters/`,
    );
  }
  const clusters = new Map<string, string>();
  // One feature string per cluster, shared by its words.
  const features = new Map<string, string>();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const tab = line.indexOf("\t");
    const word = tab === -1 ? line : line.slice(0, tab);
    const cluster = tab === -1 ? "" : line.slice(tab + 1);
    if (!isLowercaseWord(word) || !isWholeNumber(cluster))
      throw new AebError(`${path}, line ${index + 1}: expected "word<TAB>cluster" (a lowercase word a-z, a whole number), got "${line}"`);
    let feature = features.get(cluster);
    if (feature === undefined) features.set(cluster, (feature = `K_${cluster}`));
    clusters.set(word, feature);
  }
  if (clusters.size === 0) throw new AebError(`${path} holds no word clusters; restore data/word-clusters/en.tsv`);
  return clusters;
}

// Character checks instead of a regular expression per line: the file has 80,000 lines and is read
// by every process that plays the offline user.
const isLowercaseWord = (text: string) => everyCodeIn(text, 97, 122);
const isWholeNumber = (text: string) => everyCodeIn(text, 48, 57);

/** Is the text non-empty, with every UTF-16 code unit in [low, high]? */
function everyCodeIn(text: string, low: number, high: number): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < low || code > high) return false;
  }
  return true;
}
