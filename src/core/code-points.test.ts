import { describe, expect, it } from "vitest";
import { createRng } from "./random.js";
import { codePointCount } from "./code-points.js";

describe("codePointCount", () => {
  it("counts as [...text].length does: pairs once, lone surrogates once", () => {
    const pieces = ["a", "é", "我", "😀", "𝐬", "\uD83D", "\uDE00", "\uDC00\uD800", " ", "\n", ""];
    const rng = createRng(3);
    const texts = [
      "",
      "😀😀",
      "\uD83D",
      "a\uDE00b",
      ...Array.from({ length: 3000 }, () => Array.from({ length: rng.int(0, 12) }, () => rng.pick(pieces)).join("")),
    ];
    for (const text of texts) expect(codePointCount(text), JSON.stringify(text)).toBe([...text].length);
  });
});
