import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { Language } from "../lexicon/lexicon.js";
import type { EcsEstimate, EcsJudge, EcsJudgeInput } from "./judge.js";

const AffectLexiconSchema = z.strictObject({
  negators: z.array(z.string()),
  intensifiers: z.array(z.string()),
  words: z.record(z.string(), z.number().int().min(-3).max(3)),
});
type AffectLexicon = z.infer<typeof AffectLexiconSchema>;

export function loadAffectLexicon(language: Language): AffectLexicon {
  return loadDataFile(dataPath("affect-lexicon", `${language}.yaml`), AffectLexiconSchema);
}

/** How far one valence point moves the predicted emotion from neutral. */
const POINTS_PER_VALENCE = 6;
/** Weight of each earlier user message relative to the next more recent one. */
const DECAY = 0.5;

export interface AffectScore {
  valence: number;
  /** How many affect words were found: the evidence the confidence rests on. */
  hits: number;
}

/** Sums the valence of a text's affect words, halving and flipping words after a negator. */
export function affectScore(text: string, lexicon: AffectLexicon, language: Language): AffectScore {
  const tokens = language === "zh" ? tokenizeChinese(text, Object.keys(lexicon.words)) : (text.toLowerCase().match(/[a-z']+/g) ?? []);
  let valence = 0;
  let hits = 0;
  tokens.forEach((token, index) => {
    const value = lexicon.words[token];
    if (value === undefined) return;
    hits += 1;
    const window = tokens.slice(Math.max(0, index - 3), index);
    const negated = window.some((word) => lexicon.negators.includes(word) || word.endsWith("n't"));
    const intensified = window.some((word) => lexicon.intensifiers.includes(word));
    valence += (negated ? -0.5 : 1) * value * (intensified ? 1.5 : 1);
  });
  return { valence, hits };
}

/** Greedy longest-match segmentation over the lexicon's words (and single characters otherwise). */
function tokenizeChinese(text: string, words: readonly string[]): string[] {
  const longest = Math.max(1, ...words.map((word) => word.length));
  const known = new Set(words);
  const tokens: string[] = [];
  for (let index = 0; index < text.length;) {
    let taken = 1;
    for (let size = Math.min(longest, text.length - index); size > 1; size -= 1) {
      if (known.has(text.slice(index, index + size))) {
        taken = size;
        break;
      }
    }
    tokens.push(text.slice(index, index + taken));
    index += taken;
  }
  return tokens;
}

/**
 * The offline ECS judge: predicts the user's emotion from the visible text alone with an affect
 * lexicon, weighting the user's recent messages most. A heuristic for the embedded default, so
 * that ECS is computed end to end without a model; real findings need an LLM judge.
 */
export class OfflineEcsJudge implements EcsJudge {
  readonly id = "offline-lexicon";

  async estimate(input: EcsJudgeInput): Promise<EcsEstimate> {
    const lexicon = loadAffectLexicon(input.language);
    const userMessages = input.visible.filter((turn) => turn.role === "user").map((turn) => turn.content);
    let weighted = 0;
    let weights = 0;
    let hits = 0;
    userMessages.reverse().forEach((message, age) => {
      const score = affectScore(message, lexicon, input.language);
      const weight = DECAY ** age;
      weighted += weight * score.valence;
      weights += weight;
      hits += score.hits;
    });
    const valence = weights === 0 ? 0 : weighted / weights;
    const predicted = Math.round(Math.min(100, Math.max(0, 50 + POINTS_PER_VALENCE * valence)));
    const confidence = Math.min(90, 20 + 10 * hits);
    return { predicted, confidence, reasoning: `valence ${valence.toFixed(2)} from ${hits} affect word(s)` };
  }
}
