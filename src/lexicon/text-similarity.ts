import { memoByText } from "./memo.js";

/**
 * Word-trigram similarity between two texts, shared by the repetition detector and the offline
 * user's near-repeat rule. Han characters count one token each; other scripts count by words.
 */
export function similarityTokens(text: string): string[] {
  return text.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}']+/gu) ?? [];
}

/** The set of `size`-token shingles of a token list (the whole list when it is shorter). */
export function shingles(items: readonly string[], size = 3): Set<string> {
  const result = new Set<string>();
  if (items.length < size) {
    if (items.length > 0) result.add(items.join(" "));
    return result;
  }
  for (let index = 0; index + size <= items.length; index += 1) result.add(items.slice(index, index + size).join(" "));
  return result;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** Share of `earlier`'s shingles found in `reply`: an earlier reply padded with new text still contains itself. */
export function containment(reply: ReadonlySet<string>, earlier: ReadonlySet<string>): number {
  if (earlier.size === 0) return 0;
  let shared = 0;
  for (const item of earlier) if (reply.has(item)) shared += 1;
  return shared / earlier.size;
}

/** An earlier text needs at least this many shingles before containment counts (a two-word reply is contained everywhere). */
export const CONTAINMENT_MIN_SHINGLES = 4;

/** How alike a reply is to an earlier one: trigram Jaccard, or containment of the earlier one when it is long enough. */
export function replySimilarity(reply: ReadonlySet<string>, earlier: ReadonlySet<string>): number {
  return Math.max(jaccard(reply, earlier), earlier.size >= CONTAINMENT_MIN_SHINGLES ? containment(reply, earlier) : 0);
}

/** The word-trigram shingles of a text, memoised: every turn compares a reply with all the earlier ones. */
export const textShingles: (text: string) => ReadonlySet<string> = memoByText((text) => shingles(similarityTokens(text)));
