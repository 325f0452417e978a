/**
 * A small tmpfs for full-disk tests (`mount -t tmpfs`, which needs root: CI runs as root). Where
 * it cannot be mounted the tests that need it are skipped, and src/record/jsonl-file.test.ts
 * still covers a full disk by injecting the fault at the file-system layer.
 */
import { execFileSync } from "node:child_process";
import { closeSync, ftruncateSync, fstatSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  dir: string;
  /** Fills the file system, leaving about `bytes` free (a filler file). */
  fill(bytes: number): void;
  /** Frees what `fill` took. */
  freeSpace(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeBytes`; undefined (with the reason) where mounting is not possible. */
export function mountTmpfs(sizeBytes: number): Tmpfs | string {
  if (process.platform !== "linux") return "tmpfs needs Linux";
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  // Not temporaryDirectory(): the mount point must outlive the file's tests and be unmounted before
  // it can be removed, which `unmount()` does (the test files call it in afterAll).
  const dir = mkdtempSync(join(tmpdir(), "aeb-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `mount -t tmpfs failed: ${(error as Error).message}`;
  }
  const filler = join(dir, "filler");
  return {
    dir,
    fill(bytes) {
      const fd = openSync(filler, "a");
      const chunk = Buffer.alloc(64 * 1024, 120);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
      // Byte by byte up to the last page.
      try {
        for (;;) writeSync(fd, chunk, 0, 512);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
      ftruncateSync(fd, Math.max(0, fstatSync(fd).size - bytes));
      closeSync(fd);
    },
    freeSpace() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync("umount", [dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh directory inside the tmpfs. */
export function directoryIn(tmpfs: Tmpfs, name: string): string {
  const dir = join(tmpfs.dir, name);
  mkdirSync(dir);
  return dir;
}
