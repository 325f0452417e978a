import type { Detector } from "./detector.js";

export const REPETITION_PENALTY = -3;
/** Replies at least this similar (Jaccard over word trigrams) to an earlier one are repeats. */
export const REPETITION_SIMILARITY = 0.8;
/** The same opening words this many times in one dialogue count as a template. */
export const TEMPLATE_OPENING_LIMIT = 3;
/** A word trigram this many times within one reply is padding or keyword stuffing. */
export const INTERNAL_TRIGRAM_LIMIT = 3;
const OPENING_TOKENS = 4;

function tokens(text: string): string[] {
  // Han characters count one token each; other scripts by words.
  return text.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}']+/gu) ?? [];
}

function shingles(items: string[], size = 3): Set<string> {
  const result = new Set<string>();
  if (items.length < size) {
    if (items.length > 0) result.add(items.join(" "));
    return result;
  }
  for (let index = 0; index + size <= items.length; index += 1) result.add(items.slice(index, index + size).join(" "));
  return result;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** Share of `earlier`'s trigrams found in `reply`: an earlier reply padded with new text still contains itself. */
export function containment(reply: Set<string>, earlier: Set<string>): number {
  if (earlier.size === 0) return 0;
  let shared = 0;
  for (const item of earlier) if (reply.has(item)) shared += 1;
  return shared / earlier.size;
}

/**
 * Repetition (spec section 3): a reply nearly identical to an earlier reply of the same dialogue
 * (or an earlier reply with text added around it), the same template opening for the third time,
 * or a reply that repeats itself (padding, keyword stuffing).
 */
export const repetition: Detector = ({ reply, previousReplies }) => {
  const replyTokens = tokens(reply);
  if (replyTokens.length === 0) return null;
  const replyShingles = shingles(replyTokens);
  for (const [index, earlier] of previousReplies.entries()) {
    const earlierShingles = shingles(tokens(earlier));
    const similarity = Math.max(jaccard(replyShingles, earlierShingles), earlierShingles.size >= 4 ? containment(replyShingles, earlierShingles) : 0);
    if (similarity >= REPETITION_SIMILARITY) {
      return { id: "repetition", value: REPETITION_PENALTY, evidence: `${Math.round(similarity * 100)}% like reply ${index}` };
    }
  }
  const counts = new Map<string, number>();
  for (let index = 0; index + 3 <= replyTokens.length; index += 1) {
    const trigram = replyTokens.slice(index, index + 3).join(" ");
    const count = (counts.get(trigram) ?? 0) + 1;
    counts.set(trigram, count);
    if (count >= INTERNAL_TRIGRAM_LIMIT) return { id: "repetition", value: REPETITION_PENALTY, evidence: `"${trigram}" ${count} times within the reply` };
  }
  const opening = replyTokens.slice(0, OPENING_TOKENS).join(" ");
  if (replyTokens.length >= OPENING_TOKENS) {
    const same = previousReplies.filter((earlier) => tokens(earlier).slice(0, OPENING_TOKENS).join(" ") === opening).length;
    if (same + 1 >= TEMPLATE_OPENING_LIMIT) {
      return { id: "repetition", value: REPETITION_PENALTY, evidence: `opening "${opening}" used ${same + 1} times` };
    }
  }
  return null;
};
