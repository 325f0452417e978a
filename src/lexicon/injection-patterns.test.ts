/**
 * The injection screen (one alternation per set of flags) says a text matches exactly when one of
 * the patterns does, on the injection corpus (injections and hard negatives) and on every sentence
 * of the move corpus, so findInjection's early "no injection" changes no verdict.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { loadInjectionRules } from "./injection-patterns.js";
import { loadMoveCorpus } from "./move-corpus.js";

const injectionCorpus = (
  parseYaml(readFileSync(new URL("../../test/fixtures/injection-corpus.yaml", import.meta.url), "utf8")) as {
    replies: Array<{ text: string; injection: boolean }>;
  }
).replies;

describe("loadInjectionRules().anyMatches", () => {
  it("agrees with the patterns one by one on the injection corpus and the move corpus", () => {
    const { patterns, anyMatches } = loadInjectionRules();
    const texts = [
      ...injectionCorpus.map((reply) => reply.text),
      ...loadMoveCorpus().flatMap((voice) => Object.values(voice.corpus.sentences).flat()),
    ];
    const oneByOne = texts.map((text) => patterns.some(({ pattern }) => pattern.test(text)));
    expect(texts.map((text) => anyMatches(text))).toEqual(oneByOne);
    // Both answers occur, so the comparison can fail either way.
    expect(oneByOne.filter(Boolean).length).toBeGreaterThan(50);
    expect(oneByOne.filter((matched) => !matched).length).toBeGreaterThan(1000);
  });

  it("gives the same answer when asked twice (no lastIndex carried between calls)", () => {
    const { anyMatches } = loadInjectionRules();
    const injected = injectionCorpus.find((reply) => reply.injection)?.text as string;
    expect(anyMatches(injected)).toBe(true);
    expect(anyMatches(injected)).toBe(true);
    expect(anyMatches("That sounds exhausting. What happened after the meeting?")).toBe(false);
  });
});
