import { appendFileSync, closeSync, existsSync, fdatasync, fstatSync, ftruncateSync, openSync, truncateSync, writeSync } from "node:fs";
import { RunDirectoryError } from "../core/errors.js";
import { scanJsonlFile, type JsonlFileScan } from "../core/jsonl.js";
import { FileWriteError, writingFile } from "./write-error.js";

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
  return first === undefined
    ? undefined
    : new RunDirectoryError(`${path} line ${first.line} is not valid JSON (${first.message}); ${invalid.length} bad line(s) in all`);
}

/**
 * Repairs the end of a JSONL file so that appending is safe: a torn last line (a write cut short
 * by a kill) is cut off, and a complete last line without its newline gets one. Lines in the
 * middle that are not JSON are not touched: they are an error for the caller to report.
 * Passing the scan a reader already made saves a second pass.
 */
export function repairJsonlTail(path: string, scan: JsonlFileScan = scanJsonlFile(path, () => {})): JsonlRepair {
  if (scan.tornTail) {
    writingFile(path, () => truncateSync(path, scan.validPrefixBytes));
    return { tornTail: true, newlineAdded: false };
  }
  if (scan.bytes > 0 && !scan.endsWithNewline) {
    writingFile(path, () => appendFileSync(path, "\n"));
    return { tornTail: false, newlineAdded: true };
  }
  return { tornTail: false, newlineAdded: false };
}

/**
 * An append-only JSONL file: each value is written as one line, and a line is in the file whole
 * or not at all. A write that fails or comes up short (a full disk) is truncated back to where the
 * line began, so the file never holds a torn line in the middle, and the error names the file; a
 * kill can tear at most the last line, which the next opening repairs. The file is created on the
 * first append, not on open, so a run that writes nothing leaves nothing behind.
 */
/** The two calls an append makes that a full disk can fail; tests pass a failing pair (the fault injected at the file-system layer). */
export interface AppendIo {
  write(fd: number, bytes: Buffer, offset: number, length: number): number;
  truncate(fd: number, length: number): void;
}
const FILE_SYSTEM_IO: AppendIo = {
  write: (fd, bytes, offset, length) => writeSync(fd, bytes, offset, length),
  truncate: (fd, length) => ftruncateSync(fd, length),
};

export class JsonlAppender {
  #fd: number | undefined;
  /** The file's length after the last whole line: where a failed write is cut back to. */
  #size = 0;
  /** A failed write could not be cut back (the truncate failed too): the next append retries it first. */
  #tornAt: number | undefined;
  readonly repaired: JsonlRepair;

  constructor(
    readonly path: string,
    private readonly io: AppendIo = FILE_SYSTEM_IO,
  ) {
    this.repaired = existsSync(path) ? repairJsonlTail(path) : { tornTail: false, newlineAdded: false };
  }

  append(value: unknown): void {
    this.appendLine(JSON.stringify(value));
  }

  /** Appends text that is already one JSON value without newlines; throws a {@link FileWriteError} when it cannot be written whole. */
  appendLine(json: string): void {
    const fd = this.#open();
    if (this.#tornAt !== undefined) this.#cutBack(fd, new Error("an earlier write could not be cut back"));
    const bytes = Buffer.from(`${json}\n`, "utf8");
    let written = 0;
    try {
      while (written < bytes.length) {
        const count = this.io.write(fd, bytes, written, bytes.length - written);
        if (count <= 0) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
        written += count;
      }
    } catch (error) {
      this.#tornAt = this.#size;
      this.#cutBack(fd, error);
      throw new FileWriteError(this.path, error);
    }
    this.#size += bytes.length;
  }

  /**
   * Flushes what was appended to the disk (fdatasync, off the event loop), for callers that
   * acknowledge a line only once it would survive a power loss. Throws a {@link FileWriteError}.
   */
  flush(): Promise<void> {
    const fd = this.#fd;
    if (fd === undefined) return Promise.resolve();
    return new Promise((resolve, reject) =>
      fdatasync(fd, (error) => (error === null ? resolve() : reject(new FileWriteError(this.path, error)))),
    );
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    if (this.#fd === undefined) {
      const fd = writingFile(this.path, () => openSync(this.path, "a"));
      this.#size = fstatSync(fd).size;
      this.#fd = fd;
    }
    return this.#fd;
  }

  /** Cuts the file back to its last whole line; if even that fails, the error of the write is reported and the next append tries again. */
  #cutBack(fd: number, cause: unknown): void {
    try {
      this.io.truncate(fd, this.#size);
      this.#tornAt = undefined;
    } catch {
      throw new FileWriteError(this.path, cause);
    }
  }
}
