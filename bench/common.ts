/** Helpers shared by the benchmark scripts (see BENCHMARKS.md). */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";

/** The project root: set by bench/run.mjs, else the working directory. */
export const ROOT = process.env.AEB_ROOT ?? process.cwd();
export const CLI = join(ROOT, "dist", "cli", "main.js");
/** Where bench/run.mjs puts the transpiled scripts. */
export const BENCH_BUILD = join(ROOT, "runs", ".bench-build");

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export function machine(): { nproc: number; cpu: string; memoryGiB: number; node: string; os: string; loadAverage: number[] } {
  const list = cpus();
  return {
    nproc: list.length,
    cpu: list[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name, in clock ticks (100 Hz on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Resident set size of a live process in bytes, from /proc (Linux); null when unavailable. */
export function processRssBytes(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface MockServer {
  url: string;
  pid: number;
  /** CPU seconds the server process used so far (null where /proc is missing). */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** Starts `aeb mock-llm --aeb` in its own process, so its CPU is not the harness's. */
export async function startMockServer(args: readonly string[], options: { nodeArgs?: readonly string[] } = {}): Promise<MockServer> {
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, "mock-llm", "--aeb", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /listening at (\S+)/.exec(buffered);
      if (match) {
        child.stdout?.off("data", onData);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`mock server exited (${code}) before listening: ${buffered}`)));
    child.once("error", reject);
  });
  const pid = child.pid as number;
  return {
    url,
    pid,
    cpuSeconds: () => processCpuSeconds(pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Runs a node script of the bench build in a child process and returns the JSON it prints last. */
export function runChild<T>(script: string, args: readonly string[], options: { nodeArgs?: readonly string[] } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(BENCH_BUILD, script), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) return reject(new Error(`${script} exited with ${code}: ${out.slice(-2000)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${out.slice(-2000)}`));
      }
    });
  });
}

/** A Markdown table. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

/** Parses `--name value` and `--flag` arguments. */
export function parseArgs(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (!arg.startsWith("--")) continue;
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    const next = argv[index + 1];
    if (inline !== undefined) flags.set(name, inline);
    else if (next !== undefined && !next.startsWith("--")) {
      flags.set(name, next);
      index += 1;
    } else flags.set(name, "true");
  }
  return flags;
}

/** A report printed as it is written, and kept (`out`) for the markdown file a bench writes at the end. */
export function reportPrinter(): { out: string[]; print: (text?: string) => void } {
  const out: string[] = [];
  return {
    out,
    print: (text = "") => {
      out.push(text);
      process.stdout.write(`${text}\n`);
    },
  };
}
