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

/** Quotation marks whose passages are blanked out: opening mark, closing mark, and whether a newline ends the passage unclosed. */
const QUOTATIONS: ReadonlyArray<{ open: string; close: string; endsAtNewline: boolean }> = [
  { open: "“", close: "”", endsAtNewline: false },
  { open: "「", close: "」", endsAtNewline: false },
  { open: '"', close: '"', endsAtNewline: true },
];

/**
 * The reply with quoted passages (“...”, "...", 「...」) blanked out: what
 * `text.replace(/“[^”]*”|「[^」]*」|"[^"\n]*"/gu, " … ")` gives, in one pass. The regular expression
 * looks for the closing mark again from every unclosed opening mark, which is quadratic in a
 * reply full of them; here each closing mark is looked up once.
 */
export function withoutQuotations(text: string): string {
  // Where the next closing mark of each kind is, from the last search (-1: none further on).
  const nextClose = new Map<string, number>();
  const closeAfter = (close: string, from: number): number => {
    const known = nextClose.get(close);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const found = text.indexOf(close, from);
    nextClose.set(close, found);
    return found;
  };
  let result = "";
  let copiedUpTo = 0;
  const opening = new RegExp(`[${QUOTATIONS.map((quotation) => quotation.open).join("")}]`, "g");
  for (let found = opening.exec(text); found !== null; found = opening.exec(text)) {
    const { index } = found;
    const mark = found[0];
    const quotation = QUOTATIONS.find((candidate) => candidate.open === mark) as (typeof QUOTATIONS)[number];
    let end = closeAfter(quotation.close, index + 1);
    if (end !== -1 && quotation.endsAtNewline) {
      const newline = closeAfter("\n", index + 1);
      if (newline !== -1 && newline < end) end = -1;
    }
    if (end === -1) continue;
    result += `${text.slice(copiedUpTo, index)} … `;
    copiedUpTo = end + 1;
    opening.lastIndex = end + 1;
  }
  return copiedUpTo === 0 ? text : result + text.slice(copiedUpTo);
}

export function firstMatch(text: string, patterns: readonly RegExp[]): string | null {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[0].trim();
  }
  return null;
}
