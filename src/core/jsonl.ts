/**
 * JSONL reading that survives crashes and odd text: lines are split on "\n" only (SAGE's files
 * hold U+2028 inside strings, which some splitters treat as line breaks), and a torn last line
 * (a write cut short by a kill) is reported rather than fatal.
 */
export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

export interface JsonlParse {
  lines: JsonlLine[];
  /** Lines that did not parse, with their number and the parser's message. */
  invalid: Array<{ line: number; message: string; text: string }>;
  /** True when the file ends without a newline on an unparseable line (an interrupted append). */
  tornTail: boolean;
  /** Byte length of the file up to and including the last complete, parseable line's newline. */
  validPrefixBytes: number;
}

export function parseJsonl(text: string): JsonlParse {
  const lines: JsonlLine[] = [];
  const invalid: JsonlParse["invalid"] = [];
  const parts = text.split("\n");
  let offset = 0;
  let validPrefixBytes = 0;
  let tornTail = false;
  for (const [index, part] of parts.entries()) {
    const isLast = index === parts.length - 1;
    const bytes = Buffer.byteLength(part, "utf8") + (isLast ? 0 : 1);
    if (part.trim() !== "") {
      try {
        lines.push({ line: index + 1, value: JSON.parse(part) });
        if (!isLast) validPrefixBytes = offset + bytes;
      } catch (error) {
        if (isLast) tornTail = true;
        else invalid.push({ line: index + 1, message: (error as Error).message, text: part.slice(0, 120) });
      }
    } else if (!isLast) {
      validPrefixBytes = offset + bytes;
    }
    offset += bytes;
  }
  // A last line that parsed but has no newline is complete data: keep it and let the writer add "\n".
  return { lines, invalid, tornTail, validPrefixBytes };
}
