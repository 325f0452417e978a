import { appendFileSync, closeSync, existsSync, openSync, truncateSync, writeSync } from "node:fs";
import { RunDirectoryError } from "../core/errors.js";
import { scanJsonlFile, type JsonlFileScan } from "../core/jsonl.js";

/** What opening an append-only JSONL file repaired. */
export interface JsonlRepair {
  /** A last line cut short by a kill was removed. */
  tornTail: boolean;
  /** A complete last line without its newline got one. */
  newlineAdded: boolean;
}

/** The error for lines that are not JSON (a torn last line excepted): the first, and the count. */
export function invalidLinesError(path: string, invalid: JsonlFileScan["invalid"]): RunDirectoryError | undefined {
  const first = invalid[0];
  return first === undefined ? undefined : new RunDirectoryError(`${path} line ${first.line} is not valid JSON (${first.message}); ${invalid.length} bad line(s) in all`);
}

/**
 * Repairs the end of a JSONL file so that appending is safe: a torn last line (a write cut short
 * by a kill) is cut off, and a complete last line without its newline gets one. Lines in the
 * middle that are not JSON are not touched: they are an error for the caller to report.
 * Passing the scan a reader already made saves a second pass.
 */
export function repairJsonlTail(path: string, scan: JsonlFileScan = scanJsonlFile(path, () => {})): JsonlRepair {
  if (scan.tornTail) {
    truncateSync(path, scan.validPrefixBytes);
    return { tornTail: true, newlineAdded: false };
  }
  if (scan.bytes > 0 && !scan.endsWithNewline) {
    appendFileSync(path, "\n");
    return { tornTail: false, newlineAdded: true };
  }
  return { tornTail: false, newlineAdded: false };
}

/**
 * An append-only JSONL file: each value is written as one line in one `write`, so a kill can tear
 * at most the last line, which the next opening repairs. The file is created on the first append,
 * not on open, so a run that writes nothing leaves nothing behind.
 */
export class JsonlAppender {
  #fd: number | undefined;
  readonly repaired: JsonlRepair;

  constructor(readonly path: string) {
    this.repaired = existsSync(path) ? repairJsonlTail(path) : { tornTail: false, newlineAdded: false };
  }

  append(value: unknown): void {
    this.appendLine(JSON.stringify(value));
  }

  /** Appends text that is already one JSON value without newlines. */
  appendLine(json: string): void {
    this.#fd ??= openSync(this.path, "a");
    writeSync(this.#fd, `${json}\n`);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
