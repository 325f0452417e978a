import { describe, expect, it } from "vitest";
import { parseJsonl } from "./jsonl.js";

describe("parseJsonl", () => {
  it("splits on \\n only, so U+2028 inside strings stays inside", () => {
    const text = `{"a":"x\u2028y"}\n{"a":2}\n`;
    const parsed = parseJsonl(text);
    expect(parsed.lines.map((line) => line.value)).toEqual([{ a: "x\u2028y" }, { a: 2 }]);
    expect(parsed.tornTail).toBe(false);
    expect(parsed.validPrefixBytes).toBe(Buffer.byteLength(text));
  });

  it("reports a torn last line and where the valid prefix ends", () => {
    const parsed = parseJsonl(`{"a":1}\n{"a":2}\n{"a":`);
    expect(parsed.lines).toHaveLength(2);
    expect(parsed.tornTail).toBe(true);
    expect(parsed.validPrefixBytes).toBe(16);
  });

  it("reports bad lines in the middle with their numbers", () => {
    const parsed = parseJsonl(`{"a":1}\nnot json\n{"a":3}\n`);
    expect(parsed.invalid).toEqual([expect.objectContaining({ line: 2 })]);
    expect(parsed.lines.map((line) => line.line)).toEqual([1, 3]);
  });
});
