/**
 * Debian's Chromium for the browser tests (report.html, aeb view), driven by playwright-core.
 * Without it a developer's run skips those tests with a warning; on CI they fail, since .ci/run
 * installs it.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "./temporary-directory.js";

/** AEB_CHROMIUM points elsewhere (e.g. to check that a missing browser fails on CI). */
export const CHROMIUM = process.env.AEB_CHROMIUM ?? "/usr/bin/chromium";
/** No sandbox (containers), and nothing that would reach out of the machine. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const onCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false" && process.env.CI !== "0";
export const chromiumPresent = existsSync(CHROMIUM);

/** Warns (once per test file) that its browser tests are skipped here; on CI nothing is skipped. */
export function warnWhenSkipped(testFile: string): void {
  if (!chromiumPresent && !onCi) {
    console.warn(
      `${testFile}: skipped, no Chromium at ${CHROMIUM} (install it with: apt-get install -y chromium). On CI this check fails instead.`,
    );
  }
}

/**
 * Where a browser test's screenshots go: $AEB_SCREENSHOT_DIR/NAME when that is set, kept there
 * for a human look; otherwise a temporary directory removed after the test file, so a plain test
 * run leaves nothing behind (the tests still take and check the screenshots).
 */
export function screenshotDirectory(name: string): string {
  const kept = process.env.AEB_SCREENSHOT_DIR;
  if (kept === undefined || kept === "") return temporaryDirectory(`aeb-${name}-screenshots-`);
  const dir = join(kept, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
