import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The built CLI (`npm test` builds first). */
export const CLI = resolve(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function spawnCli(args: string[]) {
  return spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

export function temporaryDirectory(prefix = "aeb-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
