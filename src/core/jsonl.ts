import { closeSync, openSync, readSync } from "node:fs";

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

/** What a streamed pass over a JSONL file found besides the values (see {@link scanJsonlFile}). */
export interface JsonlFileScan {
  invalid: JsonlParse["invalid"];
  tornTail: boolean;
  validPrefixBytes: number;
  /** Size of the file in bytes. */
  bytes: number;
  /** Whether the file's last byte is "\n" (an empty file does not). */
  endsWithNewline: boolean;
}

/**
 * Called with each parsed line: its value, its 1-based number, where its text lies in the file
 * (`offset` and `bytes`, the newline excluded), so a reader can index a file and read one line back,
 * and the text itself, so a rewrite can keep a line's bytes as they were.
 */
export type JsonlVisitor = (value: unknown, line: number, offset: number, bytes: number, text: string) => void;

const NEWLINE = 0x0a;
/** Large enough that a read is cheap, small enough that it does not show in the heap. */
const DEFAULT_CHUNK_BYTES = 1 << 20;

/**
 * {@link parseJsonl}'s rules over a file, streamed: the file is read in chunks and each line is
 * parsed, handed to `visit` and dropped, so memory does not grow with the file (a run of 10,000
 * dialogues has a dialogues.jsonl of about 70 MB, several times that as JS strings and objects).
 * Lines are split on the byte "\n", which never occurs inside a multi-byte UTF-8 sequence, so a
 * chunk boundary can fall anywhere; offsets are byte offsets into the file.
 */
export interface JsonlScanOptions {
  chunkBytes?: number;
  /**
   * Lines (but never the last: it may be torn) for which this returns true on the raw text are
   * not parsed, visited or checked: for a pass that wants a few lines of a file an earlier pass
   * validated, which would otherwise parse the whole file again to drop nearly all of it.
   */
  skip?: (text: string) => boolean;
}

export function scanJsonlFile(path: string, visit: JsonlVisitor, options: JsonlScanOptions = {}): JsonlFileScan {
  const chunk = Buffer.allocUnsafe(Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES));
  const skip = options.skip;
  const invalid: JsonlParse["invalid"] = [];
  /** The start of a line that continues into the next chunk (copied: the chunk buffer is reused). */
  let pending: Buffer[] = [];
  let lineNumber = 0;
  let offset = 0;
  let validPrefixBytes = 0;
  let tornTail = false;
  let lastByte = -1;

  const handle = (text: string, lineBytes: number, isLast: boolean): void => {
    lineNumber += 1;
    const bytes = lineBytes + (isLast ? 0 : 1);
    if (!isLast && skip !== undefined && skip(text)) {
      validPrefixBytes = offset + bytes;
    } else if (text.trim() !== "") {
      let value: unknown;
      let parsed = false;
      try {
        value = JSON.parse(text);
        parsed = true;
      } catch (error) {
        if (isLast) tornTail = true;
        else invalid.push({ line: lineNumber, message: (error as Error).message, text: text.slice(0, 120) });
      }
      if (parsed) {
        if (!isLast) validPrefixBytes = offset + bytes;
        visit(value, lineNumber, offset, lineBytes, text);
      }
    } else if (!isLast) {
      validPrefixBytes = offset + bytes;
    }
    offset += bytes;
  };

  const fd = openSync(path, "r");
  try {
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      lastByte = chunk[read - 1] as number;
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1 && end < read; end = chunk.indexOf(NEWLINE, start)) {
        if (pending.length === 0) handle(chunk.toString("utf8", start, end), end - start, false);
        else {
          const line = Buffer.concat([...pending, chunk.subarray(start, end)]);
          pending = [];
          handle(line.toString("utf8"), line.length, false);
        }
        start = end + 1;
      }
      if (start < read) pending.push(Buffer.from(chunk.subarray(start, read)));
    }
  } finally {
    closeSync(fd);
  }
  const rest = Buffer.concat(pending);
  handle(rest.toString("utf8"), rest.length, true);
  return { invalid, tornTail, validPrefixBytes, bytes: offset, endsWithNewline: lastByte === NEWLINE };
}
