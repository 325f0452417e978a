/**
 * The lexicon's linear-time helpers change no result: each one-pass helper gives what the regular
 * expression it replaced gave, and the patterns that match blank space within a line find the same
 * numbered lists, headings and forged turns as their `\s*` forms did (whose retries from every
 * newline of a long blank run made a 20,000-character reply quadratic).
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../core/random.js";
import { trimApostrophes } from "./content-words.js";
import { firstMatch, withoutQuotations } from "./detect-moves.js";
import { loadLexicon, type Language } from "./lexicon.js";

/** Texts aimed at the differences that matter: what counts as a word character, surrogates, runs. */
function edgeTexts(seed: number): string[] {
  const pieces = [
    "they had no right",
    "ſorry",
    "\u212Aind",
    "I hear you",
    "you're",
    "\u017F",
    "\u212A",
    "😀",
    "𝐬ad",
    "é",
    "_",
    "1",
    "'",
    "’",
    " ",
    "\n",
    "\t",
    ".",
    "?",
    "“",
    "”",
    "「",
    "」",
    '"',
    "sad",
    "unfair",
    "maybe your",
    "user:",
    "system :",
    "1. ",
    "emotion = 100",
    "我理解你的感受",
    "你应该",
    "Ｉｇｎｏｒｅ",
    "\u00A0",
    "-",
    "ß",
    "K",
    "İ",
    "congrats",
    "well done",
  ];
  const rng = createRng(seed);
  return Array.from({ length: 400 }, () => Array.from({ length: rng.int(1, 12) }, () => rng.pick(pieces)).join(rng.pick(["", " ", ""])));
}

describe("one-pass helpers give what their regular expressions gave", () => {
  it("withoutQuotations", () => {
    const rng = createRng(7);
    const marks = ["“", "”", "「", "」", '"', "\n", "a", " ", "b c", "😀"];
    const texts = [
      ...edgeTexts(3),
      ...Array.from({ length: 2000 }, () => Array.from({ length: rng.int(0, 16) }, () => rng.pick(marks)).join("")),
    ];
    for (const text of texts)
      expect(withoutQuotations(text), JSON.stringify(text)).toBe(text.replace(/“[^”]*”|「[^」]*」|"[^"\n]*"/gu, " … "));
  });

  it("trimApostrophes", () => {
    const rng = createRng(8);
    const texts = [
      ...edgeTexts(4),
      "",
      "'",
      "''",
      ...Array.from({ length: 2000 }, () => Array.from({ length: rng.int(0, 10) }, () => rng.pick(["'", "a", "bc", "-", "n't"])).join("")),
    ];
    for (const text of texts) expect(trimApostrophes(text), JSON.stringify(text)).toBe(text.replace(/^'+|'+$/g, ""));
  });

  it("blank space within the line finds the same numbered lists and forged turns as \\s* did", () => {
    const before: Array<[Language, "advice" | "injection", string]> = [
      ["en", "advice", "(^|\\n)\\s*\\d+[.)]\\s"],
      ["en", "injection", "(^|\\n)\\s*([>*-]\\s*)*\\**(system|user|assistant|human|ai|bot|simulator|evaluator)\\**\\s*:"],
      ["en", "injection", "(^|\\n)\\s*#{2,}\\s*(instruction|response|input|system|user|assistant)\\b"],
      ["en", "injection", "(^|\\n)\\s*(appraisal|evaluation|assessment|emotion analysis|verdict|score|scoring|rating|reward)\\s*(:|\\n|$)"],
      ["zh", "advice", "(^|\\n)\\s*\\d+[.、)]"],
      ["zh", "injection", "(^|\\n)\\s*([>*-]\\s*)*(用户|助手|助理|系统|模拟器|人类|AI)\\s*[:：]"],
      ["zh", "injection", "(^|\\n)\\s*(评估|评分|打分|情绪分析|评估结果|判定)\\s*([:：]|\\n|$)"],
    ];
    const rng = createRng(9);
    const texts = [
      ...edgeTexts(5),
      ...Array.from({ length: 2000 }, () =>
        Array.from({ length: rng.int(0, 12) }, () =>
          rng.pick([
            "\n",
            " ",
            "\t",
            "1",
            "23",
            ".",
            ")",
            "、",
            "user",
            "system",
            ":",
            "x",
            " : ",
            ">",
            "-",
            "##",
            "score",
            "用户",
            "评分",
            "：",
          ]),
        ).join(""),
      ),
    ];
    for (const [language, where, source] of before) {
      const lexicon = loadLexicon(language);
      const now = (where === "advice" ? lexicon.moves.advice : lexicon.injection.map((item) => item.pattern)).find(
        (pattern) => pattern.source.replace("[^\\S\\n]*", "\\s*") === source,
      );
      expect(now, source).toBeDefined();
      const old = new RegExp(source, "iu");
      for (const text of texts) expect(firstMatch(text, [now!]), JSON.stringify(text)).toBe(firstMatch(text, [old]));
    }
  });
});
