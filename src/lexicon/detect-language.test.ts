import { describe, expect, it } from "vitest";
import { detectLanguage } from "./lexicon.js";

/** The definition detectLanguage counts by, written with the regular expressions it replaces. */
function byMatches(text: string): "zh" | "en" {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = text.match(/[A-Za-z]/g)?.length ?? 0;
  return han > latin / 3 ? "zh" : "en";
}

describe("detectLanguage", () => {
  it("calls Chinese what Han characters dominate, English otherwise", () => {
    expect(detectLanguage("我最近心里很难受。")).toBe("zh");
    expect(detectLanguage("It has been a rough few days.")).toBe("en");
    expect(detectLanguage("")).toBe("en");
    // Three Latin letters per Han character is the boundary: more than a third wins.
    expect(detectLanguage("abc中")).toBe("en");
    expect(detectLanguage("ab中")).toBe("zh");
  });

  it("counts as the regular expressions do: astral Han, full-width Latin, iteration marks, lone surrogates", () => {
    const pieces = [
      "a",
      "Z",
      "[",
      "`",
      "{",
      "@",
      "中",
      "〇",
      "々",
      "⺀",
      "𠀀",
      "Ａ",
      "é",
      "ß",
      "\ud840",
      "\udc00",
      "—",
      " ",
      "\n",
      "😀",
      "ｚ",
    ];
    let seed = 7;
    for (let sample = 0; sample < 2000; sample += 1) {
      let text = "";
      for (let index = 0; index < sample % 23; index += 1) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        text += pieces[seed % pieces.length];
      }
      expect(detectLanguage(text), JSON.stringify(text)).toBe(byMatches(text));
    }
  });
});
