/**
 * screenOf answers "does any of these patterns match?" in one scan per set of flags; the
 * recogniser's lexicon features rest on it, so it must agree with the patterns one by one.
 */
import { describe, expect, it } from "vitest";
import { loadLexicon, MOVE_IDS } from "./lexicon.js";
import { loadMoveCorpus } from "./move-corpus.js";
import { recogniserFeatures } from "./move-recogniser.js";
import { screenOf } from "./pattern-screen.js";
import { sentenceFeatures } from "./sentence-features.js";
import { shippedWordClusters } from "./word-clusters.js";

describe("screenOf", () => {
  it("gives the recogniser the same features as testing every lexicon pattern, on every corpus sentence", () => {
    const lexicons = [loadLexicon("en"), loadLexicon("zh")];
    const direct = (sentence: string) => {
      const features = sentenceFeatures(sentence, shippedWordClusters());
      for (const lexicon of lexicons)
        for (const move of MOVE_IDS) if (lexicon.moves[move].some((pattern) => pattern.test(sentence))) features.push(`LEX_${move}`);
      return features;
    };
    const sentences = loadMoveCorpus().flatMap((voice) => Object.values(voice.corpus.sentences).flat());
    const expected = sentences.map(direct);
    expect(sentences.map(recogniserFeatures)).toEqual(expected);
    // Lexicon features occur often enough for the comparison to mean something.
    expect(expected.filter((features) => features.some((feature) => feature.startsWith("LEX_"))).length).toBeGreaterThan(500);
  });

  it("screens pattern by pattern where an alternation would change a pattern (backreferences, a group named twice)", () => {
    const backreference = screenOf([/(a)\1/, /zz/]);
    expect(backreference("xaax")).toBe(true);
    expect(backreference("xaxa")).toBe(false);
    const namedTwice = screenOf([/(?<word>cat)s/, /(?<word>dog)s/]);
    expect(namedTwice("two dogs")).toBe(true);
    expect(namedTwice("one dog")).toBe(false);
  });

  it("keeps each set of flags apart and ignores a global pattern's lastIndex", () => {
    const screen = screenOf([/abc/, /ÄBC/iu, /xyz/g]);
    expect(screen("ABC")).toBe(false);
    expect(screen("äbc")).toBe(true);
    expect(screen("xyz")).toBe(true);
    expect(screen("xyz")).toBe(true);
    expect(screenOf([])("anything")).toBe(false);
  });
});
