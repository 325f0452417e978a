import { contentWords } from "../lexicon/content-words.js";
import type { Lexicon } from "../lexicon/lexicon.js";

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
