import type { ChatTurn } from "../core/dialogue.js";
import { AebError } from "../core/errors.js";
import { contentWords } from "../lexicon/content-words.js";
import type { Language, Lexicon } from "../lexicon/lexicon.js";

/** Helpers the reference agents use to ground a reply in the user's own words. */

const MAX_QUOTE_WORDS = 14;

/** The clause of the user's message with the most content words, quoted, so replies stay grounded. */
export function quoteClause(text: string, lexicon: Lexicon): string {
  const separators = lexicon.language === "zh" ? /[。！？；，\n]+/u : /[.!?;\n]+|,\s+(?:and|but)\s+/u;
  const clauses = text
    .split(separators)
    .map((clause) => clause.trim().replace(/^["“'‘]+|["”'’]+$/gu, ""))
    .filter((clause) => clause.length > 0);
  let best = clauses[0] ?? text.trim();
  let bestScore = -1;
  for (const clause of clauses) {
    const score = contentWords(clause, lexicon).size;
    // Ties go to the later clause: the user's new content comes after their reaction.
    if (score >= bestScore) {
      best = clause;
      bestScore = score;
    }
  }
  if (lexicon.language === "zh") return `“${[...best].slice(0, 30).join("")}”`;
  const words = best.split(/\s+/u);
  const clipped = words.length > MAX_QUOTE_WORDS ? `${words.slice(0, MAX_QUOTE_WORDS).join(" ")}...` : best;
  return `“${clipped}”`;
}

/** The distinct feeling words the user used, in order of appearance. */
export function feelingWords(text: string, lexicon: Lexicon): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(lexicon.emotionPattern.source, lexicon.emotionPattern.flags))) {
    const word = (match[1] ?? match[0]).toLowerCase();
    if (!found.includes(word)) found.push(word);
  }
  return found;
}

export function joinList(items: readonly string[], language: "en" | "zh"): string {
  if (language === "zh") return items.join("、");
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

export function fillTemplate(template: string, values: Record<string, string>): string {
  const filled = template.replace(/\{(\w+)\}/gu, (whole, key: string) => values[key] ?? whole);
  // A template may start with a placeholder: capitalise the sentence, not the quote mark.
  return filled.replace(/^(“?)(\p{Ll})/u, (_whole, mark: string, letter: string) => `${mark}${letter.toUpperCase()}`);
}

/** The user's last message in a visible history. */
export function lastUserText(history: readonly ChatTurn[]): string {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const turn = history[index];
    if (turn?.role === "user") return turn.content;
  }
  throw new AebError("an agent was asked to reply before the user said anything");
}

/** The last sentence of a message, without its closing punctuation. */
export function lastSentence(text: string, language: Language): string {
  const sentences = text
    .split(language === "zh" ? /[。！？!?\n]+/u : /(?<=[.!?])\s+|\n+/u)
    .map((sentence) => sentence.trim().replace(/[.!?。！？]+$/u, ""))
    .filter((sentence) => sentence.length > 0);
  return sentences.at(-1) ?? text.trim();
}

/**
 * The content words of a text as written (not stemmed): lowercase words without stopwords
 * (English), or two-character pieces of Han text without stop characters (Chinese).
 */
export function surfaceContentWords(text: string, lexicon: Lexicon): string[] {
  if (lexicon.language === "zh") {
    const pieces: string[] = [];
    for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
      const chars = [...run].filter((char) => !lexicon.stopwords.has(char));
      for (let index = 0; index + 1 < chars.length; index += 2) pieces.push(`${chars[index]}${chars[index + 1]}`);
    }
    return pieces;
  }
  return (text.toLowerCase().match(/[a-z][a-z'’-]*/g) ?? []).filter((word) => word.length >= 3 && !lexicon.stopwords.has(word.replace(/’/g, "'")));
}
