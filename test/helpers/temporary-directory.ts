/**
 * Temporary directories for tests. Each is removed after the test file that made it has run
 * (test/remove-temporary-directories.ts, a vitest setup file), so a test run leaves nothing in the
 * temp dir; test/global-setup.ts fails the run when something is left there all the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directories made since the last removal (in a fork, files run one after another). */
const made = new Set<string>();

/** A fresh directory under the temp dir (`PREFIX` + 6 random characters), removed after this test file. */
export function temporaryDirectory(prefix = "aeb-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory `temporaryDirectory` made; retried, since a child process may still be closing a file in one. */
export function removeTemporaryDirectories(): void {
  for (const dir of made) {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    made.delete(dir);
  }
}
