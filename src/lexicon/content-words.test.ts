/**
 * maskUserWords cuts each text once into its words (a memoised plan) and masks from the plan; this
 * proves it masks exactly as the direct regular-expression replacement it replaced, over every
 * sentence of the move corpus with the user words of four starter scenarios.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { contentWords, maskUserWords, trimApostrophes, USER_WORD_MARK } from "./content-words.js";
import { loadLexicon, type Lexicon } from "./lexicon.js";
import { loadMoveCorpus } from "./move-corpus.js";

/** The replacement as it was written before the plan (English), kept here as the reference. */
function maskDirectly(
  text: string,
  userWords: ReadonlySet<string>,
  lexicon: Lexicon,
  feelings: ReadonlySet<string>,
  keep: (word: string) => boolean,
): string {
  const stem = (word: string) => {
    for (const suffix of ["ations", "ation", "ions", "ion", "ings", "ing", "edly", "ed", "es", "s", "ly"]) {
      if (word.length - suffix.length >= 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
    }
    return word;
  };
  return text.replace(/[A-Za-z][A-Za-z'’-]*/g, (raw) => {
    const word = trimApostrophes(raw.toLowerCase().replace(/[’]/g, "'"));
    if (word.length < 3 || word.includes("'") || lexicon.stopwords.has(word) || feelings.has(word) || keep(word)) return raw;
    return userWords.has(stem(word)) ? USER_WORD_MARK : raw;
  });
}

describe("maskUserWords", () => {
  it("masks every corpus sentence exactly as the direct replacement, for the user words of four starter scenarios", () => {
    const lexicon = loadLexicon("en");
    const sentences = loadMoveCorpus().flatMap((voice) => Object.values(voice.corpus.sentences).flat());
    const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" })
      .filter((scenario) => scenario.language === "en")
      .slice(0, 4);
    expect(sentences.length).toBeGreaterThan(1000);
    expect(scenarios.length).toBeGreaterThan(0);
    // A `keep` that spares some of the user's words, as the recogniser's vocabulary does.
    const feelings = new Set(lexicon.emotionWords.map((word) => word.toLowerCase()));
    const keeps = [() => false, (word: string) => word.length % 3 === 0];
    let masked = 0;
    for (const scenario of scenarios) {
      const userWords = contentWords(`${scenario.opening ?? ""} ${scenario.hiddenIntention.text}`, lexicon);
      for (const keep of keeps) {
        const expected = sentences.map((sentence) => maskDirectly(sentence, userWords, lexicon, feelings, keep));
        expect(sentences.map((sentence) => maskUserWords(sentence, userWords, lexicon, keep))).toEqual(expected);
        masked += expected.filter((text, index) => text !== sentences[index]).length;
      }
    }
    // The comparison means something only if many sentences had words masked.
    expect(masked).toBeGreaterThan(100);
  });

  it("masks the same text again with another user's words (the plan holds nothing of the user's)", () => {
    const lexicon = loadLexicon("en");
    const text = "You’re worried the promotion went to someone else, and the exams made it worse.";
    const first = maskUserWords(text, new Set(["promot", "exam"]), lexicon);
    expect(first).toBe(`You’re worried the ${USER_WORD_MARK} went to someone else, and the ${USER_WORD_MARK} made it worse.`);
    expect(maskUserWords(text, new Set(["someone"]), lexicon)).toBe(
      `You’re worried the promotion went to ${USER_WORD_MARK} else, and the exams made it worse.`,
    );
    expect(maskUserWords(text, new Set(["promot"]), lexicon, (word) => word === "promotion")).toBe(text);
  });
});
