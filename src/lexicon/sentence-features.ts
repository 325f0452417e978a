/**
 * The features the move recogniser reads in one sentence (docs/offline-user.md, "Hearing moves"):
 * for Latin-script words, stemmed word unigrams and bigrams with negation marking (a word in the
 * scope of "not", "never", "no"... is a different feature: "you did not deserve" is not "you
 * deserve"), the first word of the sentence, a question mark, and each word's cluster of words alike in
 * meaning when clusters are given (word-clusters.ts: a word the corpus never used is heard through the
 * words of its cluster that it did, negated in a negation's scope as words are); for Han and every other script
 * without spaces between words, character unigrams, bigrams and trigrams. One model reads every
 * language: an English reply with a Chinese insult in it is read with the same features as a
 * Chinese one.
 */

const CONTRACTIONS: ReadonlyArray<[RegExp, string]> = [
  [/\bcan['’]t\b/g, "can not"],
  [/\bwon['’]t\b/g, "will not"],
  [/\bshan['’]t\b/g, "shall not"],
  [/n['’]t\b/g, " not"],
  [/['’]re\b/g, " are"],
  [/['’]m\b/g, " am"],
  [/['’]ll\b/g, " will"],
  [/['’]ve\b/g, " have"],
  [/['’]d\b/g, " would"],
  [/\b(it|that|there|what|here|who|he|she|everything|nothing|this)['’]s\b/g, "$1 is"],
  [/['’]s\b/g, ""],
];

/** The apostrophes CONTRACTIONS spell (each of its patterns holds `['’]`). */
const APOSTROPHE = /['’]/;

/** Words that put the next words of their clause in the scope of a negation. */
const NEGATORS = new Set(["not", "no", "never", "nothing", "nobody", "none", "neither", "nor", "without", "cannot", "hardly"]);
/** Words that end a negation's scope (as commas, semicolons and colons do). */
const SCOPE_ENDS = new Set(["but", "and", "because", "though", "although", "yet", "so", "while"]);
/** How many words after a negator it reaches. */
const NEGATION_REACH = 4;

const SUFFIXES = [
  "ational",
  "ations",
  "ation",
  "ingly",
  "ings",
  "ing",
  "edly",
  "ness",
  "ment",
  "ions",
  "ion",
  "ies",
  "ied",
  "ed",
  "es",
  "ly",
  "s",
];

/** A light suffix stripper: "deserved" meets "deserve", "feelings" meets "feeling". */
export function stemWord(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return suffix === "ies" || suffix === "ied" ? `${stem}y` : stem;
    }
  }
  return word;
}

/** Runs of a script written without spaces between words (Han, Kana, Hangul, Thai...) or with letters outside Latin. */
const NON_LATIN_RUN = /[\p{L}\p{M}]+/gu;
const LATIN_WORD = /^[a-z][a-z0-9]*$/;

/** The feature strings of one sentence (own words only: quotations are blanked before this). */
export function sentenceFeatures(sentence: string, clusters?: ReadonlyMap<string, string>): string[] {
  let text = sentence.toLowerCase().normalize("NFKC");
  // Every contraction pattern has an apostrophe in it: a sentence without one skips the eleven scans.
  if (APOSTROPHE.test(text)) for (const [pattern, replacement] of CONTRACTIONS) text = text.replace(pattern, replacement);
  const features: string[] = [];
  const tokens = text.match(/[\p{L}\p{M}\p{N}]+|[?!,;:，；：]/gu) ?? [];
  const words: string[] = [];
  let negated = 0;
  for (const token of tokens) {
    if (token === "?" || token === "!") {
      features.push(token === "?" ? "Q" : "EXCL");
      negated = 0;
      continue;
    }
    if (/^[,;:，；：]$/u.test(token)) {
      negated = 0;
      continue;
    }
    if (!LATIN_WORD.test(token)) {
      for (const run of token.match(NON_LATIN_RUN) ?? []) charGrams(run, features);
      negated = 0;
      continue;
    }
    // A masked word of the user's (content-words.ts, USER_WORD_MARK) is no evidence of any class.
    if (token === "uword") continue;
    if (SCOPE_ENDS.has(token)) negated = 0;
    if (token.length >= 4) latinGrams(token, features);
    const stem = stemWord(token);
    const word = negated > 0 ? `NOT_${stem}` : stem;
    words.push(word);
    const cluster = clusters?.get(token);
    if (cluster !== undefined) features.push(negated > 0 ? `NOT_${cluster}` : cluster);
    if (negated > 0) negated -= 1;
    if (NEGATORS.has(token)) negated = NEGATION_REACH;
  }
  if (words.length > 0) features.push(`FIRST_${words[0]}`);
  for (let index = 0; index < words.length; index += 1) {
    features.push(`W_${words[index]}`);
    if (index + 1 < words.length) features.push(`B_${words[index]}_${words[index + 1]}`);
  }
  if (words.length === 0 && features.length === 0) features.push("EMPTY");
  return features;
}

/** Character unigrams, bigrams and trigrams of a run of non-Latin letters. */
function charGrams(run: string, features: string[]): void {
  const chars = [...run];
  for (let index = 0; index < chars.length; index += 1) {
    features.push(`C1_${chars[index]}`);
    if (index + 1 < chars.length) features.push(`C2_${chars[index]}${chars[index + 1]}`);
    if (index + 2 < chars.length) features.push(`C3_${chars[index]}${chars[index + 1]}${chars[index + 2]}`);
  }
}

/** Character 4-grams of a Latin word with its boundaries marked: "gonna" and "going to" share little, but "apologise" meets "apologize". */
function latinGrams(word: string, features: string[]): void {
  const marked = `<${word}>`;
  for (let index = 0; index + 4 <= marked.length; index += 1) features.push(`L4_${marked.slice(index, index + 4)}`);
}
