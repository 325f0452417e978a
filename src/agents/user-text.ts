import type { ChatTurn } from "../core/dialogue.js";
import { AebError } from "../core/errors.js";
import { contentWords } from "../lexicon/content-words.js";
import type { Language, Lexicon } from "../lexicon/lexicon.js";

/** Helpers the reference agents use to ground a reply in the user's own words. */

const MAX_QUOTE_WORDS = 14;

/** The clause of the user's message with the most content words, quoted. */
export function quoteClause(text: string, lexicon: Lexicon): string {
  const best = bestClause(text, lexicon);
  if (lexicon.language === "zh") return `“${[...best].slice(0, 30).join("")}”`;
  return `“${clipWords(best)}”`;
}

function clipWords(clause: string, ellipsis = "..."): string {
  const words = clause.split(/\s+/u);
  return words.length > MAX_QUOTE_WORDS ? `${words.slice(0, MAX_QUOTE_WORDS).join(" ")}${ellipsis}` : clause;
}

/** First-person words of the user and what the listener says instead (English, lowercase). */
const REFLECTED: Readonly<Record<string, string>> = {
  i: "you",
  me: "you",
  my: "your",
  mine: "yours",
  myself: "yourself",
  we: "you",
  us: "you",
  our: "your",
  ours: "yours",
  ourselves: "yourselves",
  "i'm": "you're",
  "i've": "you've",
  "i'll": "you'll",
  "i'd": "you'd",
  "we're": "you're",
  "we've": "you've",
  am: "are",
};

/**
 * The same clause in the listener's own words, unquoted: first person turned into second ("my
 * boss blamed me" becomes "your boss blamed you"; 我 becomes 你). A reflection grounds a reply in
 * what the user said without quoting it (the offline user does not count quoted words as the
 * agent's own; docs/offline-user.md).
 */
export function reflectClause(text: string, lexicon: Lexicon): string {
  const best = bestClause(text, lexicon);
  if (lexicon.language === "zh") return [...best.replaceAll("我们", "你们").replaceAll("我", "你")].slice(0, 30).join("");
  const reflected = clipWords(best, "")
    .replace(/\b(I|we)\s+was\b/giu, (_whole, subject: string) => `${subject} were`)
    .replace(/[A-Za-z][A-Za-z'’]*/gu, (word) => {
      const swap = REFLECTED[word.toLowerCase().replace(/’/gu, "'")];
      return swap === undefined ? word : swap;
    });
  // "I" opened the clause: the reflection starts in lowercase, the template capitalises it where it opens a sentence.
  return reflected.replace(/^You\b/u, "you");
}

function bestClause(text: string, lexicon: Lexicon): string {
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
  return best;
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
  // {Name} is {name} with its first letter capitalised, for a placeholder that opens a sentence.
  const filled = template.replace(/\{(\w+)\}/gu, (whole, key: string) => {
    const exact = values[key];
    if (exact !== undefined) return exact;
    const lowered = values[key.charAt(0).toLowerCase() + key.slice(1)];
    return lowered === undefined ? whole : lowered.replace(/^\p{Ll}/u, (letter) => letter.toUpperCase());
  });
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
  return (text.toLowerCase().match(/[a-z][a-z'’-]*/g) ?? []).filter(
    (word) => word.length >= 3 && !lexicon.stopwords.has(word.replace(/’/g, "'")),
  );
}
