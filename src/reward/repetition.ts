import { memoByText } from "../lexicon/memo.js";
import { replySimilarity, similarityTokens as tokens, textShingles } from "../lexicon/text-similarity.js";
import type { Detector } from "./detector.js";

export const REPETITION_PENALTY = -3;
/** Replies at least this similar (Jaccard over word trigrams) to an earlier one are repeats. */
export const REPETITION_SIMILARITY = 0.8;
/** The same opening words this many times in one dialogue count as a template. */
export const TEMPLATE_OPENING_LIMIT = 3;
/** A word trigram this many times within one reply is padding or keyword stuffing. */
export const INTERNAL_TRIGRAM_LIMIT = 3;
const OPENING_TOKENS = 4;

/** A reply's first words, memoised: every turn compares them with all the earlier replies' again. */
const openingOf = memoByText((text: string) => tokens(text).slice(0, OPENING_TOKENS).join(" "));

/**
 * Repetition (docs/offline-user.md, "Deterministic adjustments"): a reply nearly identical to an earlier reply of the same dialogue
 * (or an earlier reply with text added around it), the same template opening for the third time,
 * or a reply that repeats itself (padding, keyword stuffing).
 */
export const repetition: Detector = ({ reply, previousReplies }) => {
  const replyTokens = tokens(reply);
  if (replyTokens.length === 0) return null;
  const replyShingles = textShingles(reply);
  for (const [index, earlier] of previousReplies.entries()) {
    const earlierShingles = textShingles(earlier);
    const similarity = replySimilarity(replyShingles, earlierShingles);
    if (similarity >= REPETITION_SIMILARITY) {
      return { id: "repetition", value: REPETITION_PENALTY, evidence: `${Math.round(similarity * 100)}% like reply ${index}` };
    }
  }
  const counts = new Map<string, number>();
  for (let index = 0; index + 3 <= replyTokens.length; index += 1) {
    const trigram = replyTokens.slice(index, index + 3).join(" ");
    const count = (counts.get(trigram) ?? 0) + 1;
    counts.set(trigram, count);
    if (count >= INTERNAL_TRIGRAM_LIMIT)
      return { id: "repetition", value: REPETITION_PENALTY, evidence: `"${trigram}" ${count} times within the reply` };
  }
  const opening = openingOf(reply);
  if (replyTokens.length >= OPENING_TOKENS) {
    const same = previousReplies.filter((earlier) => openingOf(earlier) === opening).length;
    if (same + 1 >= TEMPLATE_OPENING_LIMIT) {
      return { id: "repetition", value: REPETITION_PENALTY, evidence: `opening "${opening}" used ${same + 1} times` };
    }
  }
  return null;
};
