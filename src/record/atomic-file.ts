import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { FileWriteError } from "./write-error.js";

/**
 * Writes a whole file atomically: the text goes to `PATH.tmp`, is flushed to the disk, and the
 * temporary file is renamed over `PATH`, so a reader (or a kill, or a full disk) sees the old file
 * or the new one, never part of one. On a failure the temporary file is removed and a
 * {@link FileWriteError} names `PATH`; the old file is untouched.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  const temporary = `${path}.tmp`;
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  let fd: number | undefined;
  try {
    fd = openSync(temporary, "w");
    let written = 0;
    while (written < bytes.length) {
      const count = writeSync(fd, bytes, written, bytes.length - written);
      if (count <= 0) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
      written += count;
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
    throw new FileWriteError(path, error);
  }
}
