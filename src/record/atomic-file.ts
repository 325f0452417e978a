import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { FileWriteError, fileSystemErrorCode } from "./write-error.js";

/**
 * Writes a whole file atomically: the text goes to `PATH.tmp`, is flushed to the disk, and the
 * temporary file is renamed over `PATH`, so a reader (or a kill, or a full disk) sees the old file
 * or the new one, never part of one. On a failure the temporary file is removed and a
 * {@link FileWriteError} names `PATH`; the old file is untouched.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  writeFileAtomicWith(path, (fd) => writeWhole(fd, text));
}

/** Writes all of `text` at the descriptor's position (one `writeSync` may write less than asked on a nearly full disk). */
export function writeWhole(fd: number, text: string | Uint8Array): void {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  let written = 0;
  while (written < bytes.length) {
    const count = writeSync(fd, bytes, written, bytes.length - written);
    if (count <= 0) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
    written += count;
  }
}

/**
 * {@link writeFileAtomic} for a file written in pieces (a streamed export): `write` gets the
 * temporary file's descriptor, or, with `byPath`, its path (for writers that open it themselves).
 */
export function writeFileAtomicWith(
  path: string,
  write: (fd: number, temporary: string) => void,
  options: { byPath?: boolean } = {},
): void {
  const temporary = `${path}.tmp`;
  let fd: number | undefined;
  try {
    if (options.byPath === true) {
      write(-1, temporary);
      fd = openSync(temporary, "r+");
    } else {
      fd = openSync(temporary, "w");
      write(fd, temporary);
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // The write error is the one to report.
      }
    }
    rmSync(temporary, { force: true });
    // Only a file-system failure is the disk's; anything else (a bad record) is reported as it is.
    if (fileSystemErrorCode(error) === undefined) throw error;
    throw new FileWriteError(path, error);
  }
}
