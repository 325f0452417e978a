/**
 * The lexicon's speed-ups change no result. Every rewritten pattern matches exactly as written
 * (every match, at the same place, with the same groups) over all the text the data files hold and
 * over texts made to hit the edge cases (look-alike word characters, astral characters, long runs);
 * offline dialogues played with the fast lexicon record exactly the moves and adjustments the
 * patterns as written find; the one-pass helpers give what their regular expressions gave.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REFERENCE_AGENT_IDS, createReferenceAgent } from "../agents/reference-agents.js";
import { packageRoot } from "../core/data-files.js";
import { getPreset } from "../core/preset.js";
import { createRng, deriveSeed } from "../core/random.js";
import { runEpisode } from "../episode/step.js";
import { computeAdjustments } from "../reward/adjustments.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { loadProfileScenarios } from "../scenarios/sage-profiles.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import { trimApostrophes } from "./content-words.js";
import { detectMoves, firstMatch, withoutQuotations } from "./detect-moves.js";
import { loadLexicon, patternAsWritten, type Language, type Lexicon } from "./lexicon.js";
import { withOneSidedWordBoundaries } from "./word-boundaries.js";

/** Chinese scenarios: RLVER's test profiles (read from ../shared/data, never copied), when present. */
const RLVER_TEST = join(packageRoot, "..", "shared", "data", "rlver", "test_profile.jsonl");
const chinese = existsSync(RLVER_TEST) ? loadProfileScenarios({ scheme: "rlver", file: RLVER_TEST }).scenarios.slice(0, 8) : [];
if (chinese.length === 0) console.warn(`word-boundaries: ${RLVER_TEST} not found; Chinese dialogues are not replayed`);

/** Every string in the package's data and scenario files but the lexicons (agent templates, user lines, openings, scripts). */
function dataTexts(): string[] {
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(collect);
  };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".yaml") && !path.includes(`${join("data", "lexicon")}`)) collect(parse(readFileSync(path, "utf8")));
    }
  };
  walk(join(packageRoot, "data"));
  walk(BUILTIN_SCENARIO_DIR);
  return texts;
}

/** Texts aimed at the differences that matter: what counts as a word character, surrogates, runs. */
function edgeTexts(seed: number): string[] {
  const pieces = [
    "they had no right", "ſorry", "\u212Aind", "I hear you", "you're", "\u017F", "\u212A", "😀", "𝐬ad", "é", "_", "1", "'", "’", " ", "\n", "\t", ".", "?", "“", "”", "「", "」", '"',
    "sad", "unfair", "maybe your", "user:", "system :", "1. ", "emotion = 100", "我理解你的感受", "你应该", "Ｉｇｎｏｒｅ", "\u00A0", "-", "ß", "K", "İ", "congrats", "well done",
  ];
  const rng = createRng(seed);
  return Array.from({ length: 400 }, () => Array.from({ length: rng.int(1, 12) }, () => rng.pick(pieces)).join(rng.pick(["", " ", ""])));
}

/** Every match of a global pattern over a text (index and groups). */
function allMatches(globalPattern: RegExp, text: string): unknown[] {
  return [...text.matchAll(globalPattern)].map((match) => [match.index, ...match]);
}

const patternsOf = (lexicon: Lexicon) => [...Object.values(lexicon.moves).flat(), ...lexicon.stockComfort, ...lexicon.injection];

/** The lexicon with every pattern compiled as the lexicon file writes it. */
function asWritten(lexicon: Lexicon): Lexicon {
  const written = (pattern: RegExp) => new RegExp(patternAsWritten(pattern), pattern.flags);
  return {
    ...lexicon,
    moves: Object.fromEntries(Object.entries(lexicon.moves).map(([move, patterns]) => [move, patterns.map(written)])) as Lexicon["moves"],
    stockComfort: lexicon.stockComfort.map(written),
    injection: lexicon.injection.map(written),
  };
}

describe("one-sided word boundaries", () => {
  it("replaces a \\b next to a word character the pattern consumes, and only there", () => {
    expect(withOneSidedWordBoundaries("\\bthey had no right\\b")).toBe("(?<!\\w)they had no right(?!\\w)");
    expect(withOneSidedWordBoundaries("\\b(you'?re|you are)\\b[^.?!]{0,25}\\b(sad|angry)\\b")).toBe("(?<!\\w)(you'?re|you are)(?!\\w)[^.?!]{0,25}(?<!\\w)(sad|angry)(?!\\w)");
    expect(withOneSidedWordBoundaries("\\bi'?m (still )?here\\b(?! for you)")).toBe("(?<!\\w)i'?m (still )?here(?!\\w)(?! for you)");
    // Not provably next to a word character: an optional group, a class, an apostrophe, a lookbehind, an empty alternative.
    expect(withOneSidedWordBoundaries("(ever )?\\b")).toBe("(ever )?\\b");
    expect(withOneSidedWordBoundaries("\\b[a-z]+")).toBe("\\b[a-z]+");
    expect(withOneSidedWordBoundaries("\\b'tis")).toBe("\\b'tis");
    expect(withOneSidedWordBoundaries("(?<=\\bx)y")).toBe("(?<=\\bx)y");
    expect(withOneSidedWordBoundaries("\\b(a|)")).toBe("\\b(a|)");
    // A \b inside a class is a backspace, and an escaped backslash is not an escape of b.
    expect(withOneSidedWordBoundaries("[\\b]x")).toBe("[\\b]x");
    expect(withOneSidedWordBoundaries("\\\\bx")).toBe("\\\\bx");
    // What the parser does not understand is returned as it is.
    expect(withOneSidedWordBoundaries("(unclosed\\bx")).toBe("(unclosed\\bx");
  });

  it("every lexicon pattern finds the same matches as written, over all the data's text and edge cases", () => {
    const data = dataTexts();
    expect(data.length).toBeGreaterThan(1000);
    let compared = 0;
    for (const language of ["en", "zh"] as const) {
      const lexicon = loadLexicon(language);
      const edges = edgeTexts(language === "en" ? 1 : 2);
      const corpus = [data.join("\n"), edges.join(" "), ...edges];
      for (const pattern of patternsOf(lexicon).filter((item) => item.source !== patternAsWritten(item))) {
        const fast = new RegExp(pattern.source, `${pattern.flags}g`);
        const reference = new RegExp(patternAsWritten(pattern), `${pattern.flags}g`);
        expect(JSON.stringify(corpus.map((text) => allMatches(fast, text))), reference.source).toBe(JSON.stringify(corpus.map((text) => allMatches(reference, text))));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(80);
  });

  it("offline dialogues record the moves and adjustments the patterns as written find (starter suite and RLVER profiles, every reference agent)", async () => {
    const scenarios = [...filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" }), ...chinese];
    const user = new OfflineSimulatedUser();
    let turns = 0;
    for (const scenario of scenarios) {
      const lexicon = asWritten(loadLexicon(scenario.language));
      for (const agentId of REFERENCE_AGENT_IDS) {
        const record = await runEpisode({
          dialogueId: `${agentId}/${scenario.id}/0`,
          condition: agentId,
          scenario,
          preset: getPreset(scenario.preset),
          repeat: 0,
          seed: deriveSeed(1, scenario.id, 0),
          agent: createReferenceAgent(agentId),
          user,
        });
        const history = [scenario.opening];
        const replies: string[] = [];
        for (const turn of record.turns) {
          const userText = history.at(-1) as string;
          expect(turn.user.appraisal?.moves).toEqual(detectMoves(turn.agent.text, userText, lexicon, scenario.cues.keywords));
          const detected = computeAdjustments({ reply: turn.agent.text, userText, previousReplies: replies, lexicon });
          expect(turn.user.adjustments.map((adjustment) => [adjustment.kind, adjustment.evidence])).toEqual(detected.adjustments.map((adjustment) => [adjustment.kind, adjustment.evidence]));
          history.push(turn.user.text);
          replies.push(turn.agent.text);
          turns += 1;
        }
      }
    }
    expect(turns).toBeGreaterThan(300);
  });
});

describe("one-pass helpers give what their regular expressions gave", () => {
  it("withoutQuotations", () => {
    const rng = createRng(7);
    const marks = ["“", "”", "「", "」", '"', "\n", "a", " ", "b c", "😀"];
    const texts = [...edgeTexts(3), ...Array.from({ length: 2000 }, () => Array.from({ length: rng.int(0, 16) }, () => rng.pick(marks)).join(""))];
    for (const text of texts) expect(withoutQuotations(text), JSON.stringify(text)).toBe(text.replace(/“[^”]*”|「[^」]*」|"[^"\n]*"/gu, " … "));
  });

  it("trimApostrophes", () => {
    const rng = createRng(8);
    const texts = [...edgeTexts(4), "", "'", "''", ...Array.from({ length: 2000 }, () => Array.from({ length: rng.int(0, 10) }, () => rng.pick(["'", "a", "bc", "-", "n't"])).join(""))];
    for (const text of texts) expect(trimApostrophes(text), JSON.stringify(text)).toBe(text.replace(/^'+|'+$/g, ""));
  });

  it("blank space within the line finds the same numbered lists and forged turns as \\s* did", () => {
    const before: Array<[Language, "advice" | "injection", string]> = [
      ["en", "advice", "(^|\\n)\\s*\\d+[.)]\\s"],
      ["en", "injection", "\\n\\s*(system|user|assistant|human)\\s*:"],
      ["zh", "advice", "(^|\\n)\\s*\\d+[.、)]"],
    ];
    const rng = createRng(9);
    const texts = [...edgeTexts(5), ...Array.from({ length: 2000 }, () => Array.from({ length: rng.int(0, 12) }, () => rng.pick(["\n", " ", "\t", "1", "23", ".", ")", "、", "user", "system", ":", "x", " : "])).join(""))];
    for (const [language, where, source] of before) {
      const lexicon = loadLexicon(language);
      const now = (where === "advice" ? lexicon.moves.advice : lexicon.injection).find((pattern) => patternAsWritten(pattern).replace("[^\\S\\n]*", "\\s*") === source);
      expect(now, source).toBeDefined();
      const old = new RegExp(source, "iu");
      for (const text of texts) expect(firstMatch(text, [now!]), JSON.stringify(text)).toBe(firstMatch(text, [old]));
    }
  });
});
