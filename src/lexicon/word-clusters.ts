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
  let start = 0;
  for (let line = 1; start < text.length; line += 1) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const tab = text.indexOf("\t", start);
    const word = text.slice(start, tab === -1 || tab > end ? end : tab);
    const cluster = tab === -1 || tab > end ? "" : text.slice(tab + 1, end);
    if (!/^[a-z]+$/.test(word) || !/^\d+$/.test(cluster))
      throw new AebError(
        `${path}, line ${line}: expected "word<TAB>cluster" (a lowercase word a-z, a whole number), got "${text.slice(start, end)}"`,
      );
    let feature = features.get(cluster);
    if (feature === undefined) features.set(cluster, (feature = `K_${cluster}`));
    clusters.set(word, feature);
    start = end + 1;
  }
  if (clusters.size === 0) throw new AebError(`${path} holds no word clusters; restore data/word-clusters/en.tsv`);
  return clusters;
}
