import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseJsonl, scanJsonlFile, type JsonlLine } from "./jsonl.js";

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

describe("scanJsonlFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "aeb-jsonl-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const long = `{"text":"${"é中🙂 ".repeat(3000)}"}`;
  const texts: Array<[string, string]> = [
    ["U+2028 and U+2029 inside strings", `{"a":"x\u2028y"}\n{"a":"p\u2029q"}\n`],
    ["a torn last line", `{"a":1}\n{"a":2}\n{"a":`],
    ["a bad line in the middle", `{"a":1}\nnot json\n{"a":3}\n`],
    ["CRLF line ends", `{"a":1}\r\n{"a":2}\r\n`],
    ["a torn last line after CRLF", `{"a":1}\r\n{"a":`],
    ["multi-byte text, blank lines, a complete last line without newline", `{"a":"é中文🙂"}\n\n  \n{"b":[1,2,3]}`],
    ["trailing spaces", `{"a":1}\n   `],
    ["lines longer than the chunk", `${long}\n${long}\n${long.slice(0, 5000)}`],
    ["an empty file", ``],
    ["only newlines", `\n\n`],
  ];
  it.each(texts)("agrees with parseJsonl whatever the chunk size: %s", (_name, text) => {
    const path = join(dir, "file.jsonl");
    writeFileSync(path, text);
    const expected = parseJsonl(text);
    for (const chunkBytes of [1, 2, 3, 7, 64, 4096, undefined]) {
      const seen: JsonlLine[] = [];
      const scan = scanJsonlFile(path, (value, line) => seen.push({ line, value }), chunkBytes === undefined ? {} : { chunkBytes });
      expect(seen).toEqual(expected.lines);
      expect(scan.invalid).toEqual(expected.invalid);
      expect(scan.tornTail).toBe(expected.tornTail);
      expect(scan.validPrefixBytes).toBe(expected.validPrefixBytes);
      expect(scan.bytes).toBe(Buffer.byteLength(text));
      expect(scan.endsWithNewline).toBe(text.endsWith("\n"));
    }
  });

  it.each(texts)("gives each line's byte span, which reads back to the same value: %s", (_name, text) => {
    const path = join(dir, "spans.jsonl");
    writeFileSync(path, text);
    const bytes = Buffer.from(text, "utf8");
    for (const chunkBytes of [1, 7, 4096]) {
      const values: unknown[] = [];
      const readBack: unknown[] = [];
      scanJsonlFile(
        path,
        (value, _line, offset, length) => {
          values.push(value);
          readBack.push(JSON.parse(bytes.toString("utf8", offset, offset + length)));
        },
        { chunkBytes },
      );
      expect(readBack).toEqual(values);
    }
  });

  it("leaves lines the skip rule names unparsed and unvisited, with the others' numbers and spans as before, and never skips the last line", () => {
    const path = join(dir, "skip.jsonl");
    writeFileSync(path, `{"id":"a"}\nnot json, skipped\n{"id":"c"}\n{"id":"skipped-but-last"`);
    const seen: Array<{ line: number; value: unknown; offset: number }> = [];
    const scan = scanJsonlFile(path, (value, line, offset) => seen.push({ line, value, offset }), {
      skip: (text) => text.includes("skipped"),
    });
    expect(seen).toEqual([
      { line: 1, value: { id: "a" }, offset: 0 },
      { line: 3, value: { id: "c" }, offset: 29 },
    ]);
    expect(scan.invalid).toEqual([]);
    // The last line is still read: here it is torn.
    expect(scan.tornTail).toBe(true);
    expect(scan.validPrefixBytes).toBe(40);
  });

  it("keeps U+2028 inside a string as part of the value, not a line break", () => {
    const path = join(dir, "ls.jsonl");
    writeFileSync(path, `{"a":"x\u2028y"}\n`);
    const seen: unknown[] = [];
    scanJsonlFile(path, (value) => seen.push(value), { chunkBytes: 5 });
    expect(seen).toEqual([{ a: "x\u2028y" }]);
  });
});
