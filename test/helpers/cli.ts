import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { format } from "node:util";
import { main } from "../../src/cli/program.js";

/** The built CLI, for the few tests that need a process of their own (kills, signals, servers). test/global-setup.ts builds it when stale. */
export const CLI = resolve(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** In-process runs share the process's console, cwd and env: one at a time. */
let queue: Promise<void> = Promise.resolve();

/**
 * Runs `aeb ARGS` in this process, from the sources (so a test never runs stale code), capturing
 * what it prints and its exit code exactly as the executable would report them. `cwd` and `env`
 * apply for the duration of the run.
 */
export async function runCli(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const previous = queue;
  let release!: () => void;
  queue = new Promise<void>((done) => (release = done));
  await previous;

  const stdout: string[] = [];
  const stderr: string[] = [];
  const saved = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    stdoutWrite: process.stdout.write.bind(process.stdout),
    stderrWrite: process.stderr.write.bind(process.stderr),
    exitCode: process.exitCode,
    cwd: process.cwd(),
  };
  const savedEnv = new Map<string, string | undefined>();
  const writer = (sink: string[]) =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      sink.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") (done as () => void)();
      return true;
    }) as typeof process.stdout.write;
  console.log = (...values: unknown[]) => stdout.push(`${format(...values)}\n`);
  console.info = console.log;
  console.error = (...values: unknown[]) => stderr.push(`${format(...values)}\n`);
  console.warn = console.error;
  process.stdout.write = writer(stdout);
  process.stderr.write = writer(stderr);
  process.exitCode = undefined;
  for (const [name, value] of Object.entries(options.env ?? {})) {
    savedEnv.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  let code: number;
  try {
    if (options.cwd !== undefined) process.chdir(options.cwd);
    code = await main(["node", "aeb", ...args]);
  } finally {
    console.log = saved.log;
    console.info = saved.info;
    console.warn = saved.warn;
    console.error = saved.error;
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    process.exitCode = saved.exitCode;
    process.chdir(saved.cwd);
    for (const [name, value] of savedEnv) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    release();
  }
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

/** `aeb ARGS` as a process of its own (the built CLI), for tests that kill it or signal it. */
export function spawnCli(args: string[], options: { env?: Record<string, string> } = {}) {
  return spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
}

/** Like {@link spawnCli}, resolving with what it printed and its exit code once it ends. */
export function runCliProcess(args: string[], options: { env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Most test files make their directories next to running the CLI; they are removed after each file. */
export { temporaryDirectory } from "./temporary-directory.js";
