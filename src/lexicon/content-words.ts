import type { Lexicon } from "./lexicon.js";
import { memoByText } from "./memo.js";

/**
 * The content words of a text: lowercase words without stopwords (English), or Han character
 * bigrams without stop characters (Chinese, which has no spaces). Used to measure whether a reply
 * is grounded in the user's own words.
 */
export function contentWords(text: string, lexicon: Lexicon): ReadonlySet<string> {
  return memoFor(lexicon)(text);
}

const memos = new Map<Lexicon, (text: string) => ReadonlySet<string>>();
function memoFor(lexicon: Lexicon): (text: string) => ReadonlySet<string> {
  let memo = memos.get(lexicon);
  if (memo === undefined) {
    memo = memoByText((text) => computeContentWords(text, lexicon));
    memos.set(lexicon, memo);
  }
  return memo;
}

function computeContentWords(text: string, lexicon: Lexicon): Set<string> {
  const words = new Set<string>();
  if (lexicon.language === "zh") {
    for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
      const chars = [...run].filter((char) => !lexicon.stopwords.has(char));
      for (let index = 0; index + 1 < chars.length; index += 1) words.add(`${chars[index]}${chars[index + 1]}`);
    }
    return words;
  }
  for (const raw of text.toLowerCase().match(/[a-z][a-z'’-]*/g) ?? []) {
    const word = trimApostrophes(raw.replace(/[’]/g, "'"));
    if (word.length < 3 || lexicon.stopwords.has(word)) continue;
    words.add(stem(word));
  }
  return words;
}

/**
 * The word without apostrophes at either end (`word.replace(/^'+|'+$/g, "")`, without the
 * regular expression's quadratic retries inside a long run of apostrophes).
 */
export function trimApostrophes(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && word[start] === "'") start += 1;
  while (end > start && word[end - 1] === "'") end -= 1;
  return word.slice(start, end);
}

/** A light suffix stripper so "promoted" meets "promotion" and "exams" meets "exam". */
function stem(word: string): string {
  for (const suffix of ["ations", "ation", "ions", "ion", "ings", "ing", "edly", "ed", "es", "s", "ly"]) {
    if (word.length - suffix.length >= 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** How many content words of `reply` also occur in `source`. */
export function sharedContentWords(reply: string, source: string, lexicon: Lexicon): string[] {
  const sourceWords = contentWords(source, lexicon);
  return [...contentWords(reply, lexicon)].filter((word) => sourceWords.has(word));
}

/** What replaces a word of the user's in a sentence the move recogniser reads. */
export const USER_WORD_MARK = "uword";

/**
 * The text with this user's content words (`userWords`, from contentWords) replaced by
 * USER_WORD_MARK, so that the move recogniser hears what a sentence does rather than what it is
 * about: "you're sick of people being surprised" is a reflection whatever the user was sick of.
 * Feeling words stay (naming the user's own feeling is a move), and so does every word `keep`
 * says the recogniser knows as a word of what replies do rather than of what they are about
 * ("unfair", "wasn't", "right"). In Chinese every Han character of a bigram the user also wrote is
 * replaced, unless `keep` keeps the bigram.
 */
export function maskUserWords(
  text: string,
  userWords: ReadonlySet<string>,
  lexicon: Lexicon,
  keep: (word: string) => boolean = () => false,
): string {
  if (userWords.size === 0) return text;
  if (lexicon.language === "zh") {
    return text.replace(/\p{Script=Han}+/gu, (run) => {
      const chars = [...run];
      const masked = chars.map(() => false);
      for (let index = 0; index + 1 < chars.length; index += 1) {
        const bigram = `${chars[index]}${chars[index + 1]}`;
        if (userWords.has(bigram) && !keep(bigram)) masked[index] = masked[index + 1] = true;
      }
      return chars
        .map((char, index) => (masked[index] ? ` ${USER_WORD_MARK} ` : char))
        .join("")
        .replace(new RegExp(`( ${USER_WORD_MARK} )+`, "g"), ` ${USER_WORD_MARK} `);
    });
  }
  const { literals, words } = maskPlanOf(lexicon)(text);
  let masked = literals[0] as string;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] as MaskableWord;
    // Whether the user said it is asked before `keep`, which is dearer (the recogniser's vocabulary) and decides only words the user said.
    masked +=
      (word.stem !== null && userWords.has(word.stem) && !keep(word.word) ? USER_WORD_MARK : word.raw) + (literals[index + 1] as string);
  }
  return masked;
}

/** A Latin-script word of a text as maskUserWords sees it: `stem` is null for a word that is never masked. */
interface MaskableWord {
  raw: string;
  /** Lowercase, typographic apostrophes straightened, apostrophes at either end trimmed. */
  word: string;
  stem: string | null;
}

/**
 * A text cut into its Latin-script words and the text between them (`literals` has one more entry
 * than `words`), with what of each word does not depend on the user: an episode masks the same
 * earlier replies again every turn (near-repeats), with a set of user words that grows, so the
 * regular expression, lowercasing and stemming are done once per text.
 */
interface MaskPlan {
  literals: string[];
  words: MaskableWord[];
}

const maskPlans = new Map<Lexicon, (text: string) => MaskPlan>();
function maskPlanOf(lexicon: Lexicon): (text: string) => MaskPlan {
  let plan = maskPlans.get(lexicon);
  if (plan === undefined) {
    plan = memoByText((text) => computeMaskPlan(text, lexicon));
    maskPlans.set(lexicon, plan);
  }
  return plan;
}

function computeMaskPlan(text: string, lexicon: Lexicon): MaskPlan {
  const literals: string[] = [];
  const words: MaskableWord[] = [];
  const pattern = /[A-Za-z][A-Za-z'’-]*/g;
  let last = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const raw = match[0];
    literals.push(text.slice(last, match.index));
    last = match.index + raw.length;
    const word = trimApostrophes(raw.toLowerCase().replace(/[’]/g, "'"));
    // Contractions ("wasn't", "you'd") are grammar, never topic; feeling words stay (naming the user's feeling is a move).
    const never = word.length < 3 || word.includes("'") || lexicon.stopwords.has(word) || feelingWordsOf(lexicon).has(word);
    words.push({ raw, word, stem: never ? null : stem(word) });
  }
  literals.push(text.slice(last));
  return { literals, words };
}

const feelingSets = new Map<Lexicon, ReadonlySet<string>>();
function feelingWordsOf(lexicon: Lexicon): ReadonlySet<string> {
  let set = feelingSets.get(lexicon);
  if (set === undefined) {
    set = new Set(lexicon.emotionWords.map((word) => word.toLowerCase()));
    feelingSets.set(lexicon, set);
  }
  return set;
}
