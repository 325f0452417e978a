import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { MOVE_IDS } from "./lexicon.js";

/**
 * What one sentence of a reply can be, as the move recogniser hears it: one of the lexicon's moves,
 * harm that is not a move of any rubric (contempt, dismissing), ordinary connective talk, or
 * something off the topic. Unaccounted text (filler, nonsense, keyword lists, bare quotes) is what
 * is left when none of these is heard with confidence and the sentence is not grounded.
 */
export const SENTENCE_CLASSES = [...MOVE_IDS, "contempt", "dismisses", "pressures", "connective", "off_topic"] as const;
export const SentenceClassSchema = z.enum(SENTENCE_CLASSES);
export type SentenceClass = z.infer<typeof SentenceClassSchema>;

/**
 * Harm that any reply can carry, whatever the trajectory type and phase. `pressures` is coercion:
 * demanding that the user disclose, refusing to accept "I'm fine", insisting on or overriding what
 * they say they feel. It is no move because no rubric pays it anywhere (docs/offline-user.md).
 */
export const HARM_CLASSES = ["contempt", "dismisses", "pressures"] as const satisfies readonly SentenceClass[];

const MoveCorpusFileSchema = z.object({
  voice: z.string().min(1),
  description: z.string().min(1),
  sentences: z.partialRecord(SentenceClassSchema, z.array(z.string().min(1)).min(1)),
});
export type MoveCorpusFile = z.infer<typeof MoveCorpusFileSchema>;

const HeldOutSchema = z.strictObject({
  /** Corpus files (relative to data/move-corpus/) never used to train the shipped model; the recognition test measures on them. */
  heldOut: z.array(z.string().regex(/\.yaml$/, "a held-out entry is a corpus file's path, ending in .yaml")),
});

/** One corpus file, with its path relative to data/move-corpus/. */
export interface CorpusVoice {
  file: string;
  corpus: MoveCorpusFile;
}

export const MOVE_CORPUS_DIR = dataPath("move-corpus");

/** Every corpus file under data/move-corpus/ (the held-out list aside), in path order. */
export function loadMoveCorpus(directory: string = MOVE_CORPUS_DIR): CorpusVoice[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".yaml") && path !== join(directory, "held-out.yaml")) files.push(path);
    }
  };
  walk(directory);
  if (files.length === 0)
    throw new AebError(`no move corpus under ${directory}: the offline user's recogniser trains on its <language>/<voice>.yaml files`);
  return files.map((path) => ({ file: relative(directory, path).split("\\").join("/"), corpus: loadDataFile(path, MoveCorpusFileSchema) }));
}

/** The corpus files held out of the shipped model (data/move-corpus/held-out.yaml); each must exist. */
export function heldOutVoices(directory: string = MOVE_CORPUS_DIR): string[] {
  const path = join(directory, "held-out.yaml");
  if (!existsSync(path)) return [];
  const { heldOut } = loadDataFile(path, HeldOutSchema);
  for (const file of heldOut) {
    if (!existsSync(join(directory, file)))
      throw new AebError(`${path}: heldOut names ${file}, which is not a file under ${directory}; remove it or add the corpus file`);
  }
  return heldOut;
}
