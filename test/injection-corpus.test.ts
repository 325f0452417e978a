/**
 * The injection detector on a written corpus (test/fixtures/injection-corpus.yaml): injection replies
 * in English and Chinese mixed with ordinary empathetic replies, hard negatives included (scores,
 * numbers, brackets, quotes of the user). Every reply is checked under a scenario of each language,
 * as the episode step does, through the same normalisation. Precision and recall are in the test
 * names (and logged), so a run's output can be quoted.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { detectLanguage, InjectionCategorySchema, LanguageSchema, loadLexicon } from "../src/lexicon/lexicon.js";
import { computeAdjustments } from "../src/reward/adjustments.js";
import { findInjection } from "../src/reward/injection.js";

const CorpusSchema = z.strictObject({
  replies: z
    .array(
      z.union([
        z.strictObject({ injection: z.literal(true), category: InjectionCategorySchema, text: z.string().min(1) }),
        z.strictObject({ injection: z.literal(false), hard: z.boolean().optional(), text: z.string().min(1) }),
      ]),
    )
    .min(1),
});
const corpus = CorpusSchema.parse(parseYaml(readFileSync(new URL("fixtures/injection-corpus.yaml", import.meta.url), "utf8"))).replies;

interface Verdict {
  text: string;
  injection: boolean;
  language: "en" | "zh";
  flagged: Record<"en" | "zh", boolean>;
  evidence: string | undefined;
}

const verdicts: Verdict[] = corpus.map((reply) => {
  const flagged = { en: false, zh: false };
  let evidence: string | undefined;
  for (const scenarioLanguage of LanguageSchema.options) {
    const result = computeAdjustments({
      reply: reply.text,
      userText: "My advisor told the committee I wasn't ready.",
      previousReplies: [],
      lexicon: loadLexicon(scenarioLanguage),
    });
    flagged[scenarioLanguage] = result.injected;
    evidence ??= result.findings.find((finding) => finding.id === "injection")?.evidence;
  }
  return { text: reply.text, injection: reply.injection, language: detectLanguage(reply.text), flagged, evidence };
});

function rates(subset: readonly Verdict[]) {
  const truePositives = subset.filter((verdict) => verdict.injection && verdict.flagged.en).length;
  const falsePositives = subset.filter((verdict) => !verdict.injection && verdict.flagged.en).length;
  const injections = subset.filter((verdict) => verdict.injection).length;
  const flagged = truePositives + falsePositives;
  return {
    injections,
    ordinary: subset.length - injections,
    precision: flagged === 0 ? 1 : truePositives / flagged,
    recall: injections === 0 ? 1 : truePositives / injections,
    falsePositives,
  };
}
const format = (value: number) => value.toFixed(3);
const overall = rates(verdicts);
const byLanguage = Object.fromEntries(
  LanguageSchema.options.map((language) => [language, rates(verdicts.filter((verdict) => verdict.language === language))]),
);
console.log(
  `injection corpus: ${overall.injections} injections, ${overall.ordinary} ordinary replies; precision ${format(overall.precision)}, recall ${format(overall.recall)}; ` +
    LanguageSchema.options
      .map(
        (language) => `${language}: precision ${format(byLanguage[language]!.precision)}, recall ${format(byLanguage[language]!.recall)}`,
      )
      .join("; "),
);

describe("injection detector on the corpus", () => {
  it("has at least 30 injections in both languages, and ordinary replies with hard negatives in both", () => {
    expect(overall.injections).toBeGreaterThanOrEqual(30);
    for (const language of LanguageSchema.options) {
      expect(byLanguage[language]!.injections, language).toBeGreaterThanOrEqual(10);
      expect(byLanguage[language]!.ordinary, language).toBeGreaterThanOrEqual(10);
    }
    expect(corpus.filter((reply) => !reply.injection && reply.hard).length).toBeGreaterThanOrEqual(20);
  });

  it("gives every reply the same verdict in an English and a Chinese scenario", () => {
    for (const verdict of verdicts) expect(verdict.flagged.zh, verdict.text).toBe(verdict.flagged.en);
  });

  it(`recall ${format(overall.recall)} (en ${format(byLanguage.en!.recall)}, zh ${format(byLanguage.zh!.recall)}) is at least 0.95`, () => {
    const missed = verdicts.filter((verdict) => verdict.injection && !verdict.flagged.en).map((verdict) => verdict.text);
    expect(overall.recall, `missed: ${JSON.stringify(missed)}`).toBeGreaterThanOrEqual(0.95);
  });

  it(`precision ${format(overall.precision)}: no ordinary reply is flagged`, () => {
    const wronglyFlagged = verdicts
      .filter((verdict) => !verdict.injection && verdict.flagged.en)
      .map((verdict) => `${verdict.text} <- ${verdict.evidence}`);
    expect(wronglyFlagged).toEqual([]);
  });
});

describe("injection detector on real model replies", () => {
  // SAGE's published dialogues (../shared/data/sage): every assistant turn of four models, in Chinese,
  // none of which tries to address the scorer. Numbers, lists, brackets, emoji and a few stray
  // zero-width spaces all occur in them.
  const directory = "../shared/data/sage/results-deepseek-v3-simulator";
  const replies = readdirSync(directory).flatMap((file) =>
    readFileSync(join(directory, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .flatMap((line) =>
        (JSON.parse(line) as { history: Array<{ role: string; content: string }> }).history
          .filter((turn) => turn.role === "assistant")
          .map((turn) => turn.content),
      ),
  );
  const flagged = replies
    .map((reply) => ({ reply: reply.slice(0, 80), found: findInjection(reply.normalize("NFKC")) }))
    .filter((result) => result.found !== null);
  console.log(`SAGE assistant replies: ${replies.length}, flagged ${flagged.length}`);

  it(`flags none of SAGE's ${replies.length} assistant replies`, () => {
    expect(replies.length).toBeGreaterThan(3000);
    expect(flagged).toEqual([]);
  });
});
