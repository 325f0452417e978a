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

/** Like runCli, without blocking this process (needed when the test serves the CLI, e.g. a mock LLM). */
export function runCliAsync(args: string[], options: { env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
