import { sharedContentWords } from "./content-words.js";
import type { Lexicon, LexicalMove, Move } from "./lexicon.js";
import { MOVE_IDS } from "./lexicon.js";

/** One move found in a reply, with the phrase that showed it. */
export interface DetectedMove {
  move: Move;
  evidence: string;
}

/** Replies sharing at least this many content words with the user's last message are grounded. */
export const GROUNDING_MIN_SHARED = 2;

/**
 * Finds the moves a reply makes. `userText` is the user's last message; `keywords` are words of
 * the situation (a scenario's cues) that also count as grounding.
 */
export function detectMoves(reply: string, userText: string, lexicon: Lexicon, keywords: readonly string[] = []): DetectedMove[] {
  const found: DetectedMove[] = [];
  // Quoting the user's words is not making a move: "“it was unfair”, you said" does not name an unfairness.
  const ownWords = withoutQuotations(reply);
  for (const move of MOVE_IDS) {
    const evidence = firstMatch(ownWords, lexicon.moves[move as LexicalMove]);
    if (evidence !== null) found.push({ move, evidence });
  }
  const shared = sharedContentWords(reply, `${userText} ${keywords.join(" ")}`, lexicon);
  if (shared.length >= GROUNDING_MIN_SHARED) found.push({ move: "grounded", evidence: shared.slice(0, 5).join(", ") });
  return found;
}

/** The reply with quoted passages (“...”, "...", 「...」) blanked out. */
export function withoutQuotations(text: string): string {
  return text.replace(/“[^”]*”|「[^」]*」|"[^"\n]*"/gu, " … ");
}

export function firstMatch(text: string, patterns: readonly RegExp[]): string | null {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[0].trim();
  }
  return null;
}
