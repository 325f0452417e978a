/**
 * `npm run bench:llm-server`: the environment server with an LLM simulated user, against a model
 * that takes a fixed time per call, at several numbers of steps in flight.
 *
 * For each level N, a fresh `aeb mock-llm --aeb --latency-ms L` (its own process) serves the
 * simulator's model and a fresh `aeb serve --config <simulator on the mock> --steps-in-flight N`
 * (its own process) plays the steps; this process keeps N episodes going at once over HTTP (a
 * closed loop: each of N loops resets, steps with a fixed reply until the episode ends, and starts
 * again). After a warm-up, steps are counted over a measured window.
 *
 * Little's law: with N steps always in flight, throughput X = N / W, W the mean step time. The
 * ideal W is the model's own time per step (the simulator's model calls per step, read from the
 * server's /metrics, times L): X* = N / (calls per step x L). Reported: X, X / X* (what the server
 * reaches of the ideal), W's p50 and p99, the calls that waited under the client's per-endpoint cap
 * (aeb_env_simulator_calls_queued_total), the server's CPU per step and its event-loop lag.
 *
 * Flags: --in-flight 64,256,1024  --duration 20 (measured seconds per level)  --warmup 5
 *        --ramp 0 (seconds of the warm-up over which the N loops start, evenly; 0: all at once)
 *        --latency-ms 1000  --workers 1  --cap N (set maxConcurrencyPerEndpoint in the config, e.g.
 *        16 for the model client's default; unset, the server derives it)  --json FILE
 *        --profile-dir DIR (CPU profiles of all three processes: the server and the mock run under
 *        `node --cpu-prof`, written to DIR/server and DIR/mock when they stop; this client profiles
 *        itself over the measured window into DIR/client; read any of them with
 *        `node bench/run.mjs llm-step-profile --read-profile FILE`)
 *
 * The mock stands in for a model server on another machine, and this client for the trainer's
 * workers: on this machine their CPU is the harness's cost, so each process's CPU per step is
 * printed beside the server's, to show who used the cores.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "undici";
import { CLI, fixed, machine, markdownTable, parseArgs, percentile, reportPrinter, ROOT, startMockServer } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const levels = (flags.get("in-flight") ?? "64,256,1024").split(",").map(Number);
const durationS = Number(flags.get("duration") ?? 20);
const warmupS = Number(flags.get("warmup") ?? 5);
/** Seconds over which the N loops start, evenly spaced (0: all at once). Within the warm-up, so never in the measured window. */
const rampS = Number(flags.get("ramp") ?? 0);
const latencyMs = Number(flags.get("latency-ms") ?? 1000);
const workers = Number(flags.get("workers") ?? 1);
const cap = flags.has("cap") ? Number(flags.get("cap")) : undefined;
/** A directory for V8 CPU profiles of the server's processes (`node --cpu-prof`), written when each stops. */
const profileDir = flags.get("profile-dir");
for (const [name, value] of [
  ["in-flight", Math.min(...levels)],
  ["duration", durationS],
  ["latency-ms", latencyMs],
  ["workers", workers],
] as const) {
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`--${name} must be positive, got ${flags.get(name)}`);
}
const secret = "bench-secret-bench-secret-bench-secret";
const REPLY = "That sounds really hard. What happened after that?";

/** `aeb serve` in its own process, until its listening line. */
async function serve(configPath: string, stepsInFlight: number): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const args = [
    CLI,
    "serve",
    "--config",
    configPath,
    "--suite",
    "full",
    "--port",
    "0",
    "--log-level",
    "warn",
    "--steps-in-flight",
    String(stepsInFlight),
    "--workers",
    String(workers),
    "--rate-limit",
    "0",
  ];
  const nodeArgs = profileDir !== undefined ? ["--cpu-prof", "--cpu-prof-dir", join(profileDir, "server")] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, AEB_SERVER_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`aeb serve exited (${code}) before listening: ${stderr}`)));
  });
  return { url, child, log: () => stderr };
}

/** CPU seconds of a process and its descendants (cluster workers), from /proc. */
function treeCpuSeconds(pid: number): number {
  const stats = new Map<number, { parent: number; seconds: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), { parent: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The process ended while being read.
    }
  }
  let total = 0;
  for (const [candidate, { seconds }] of stats) {
    for (let current: number | undefined = candidate; current !== undefined && current > 1; current = stats.get(current)?.parent) {
      if (current === pid) {
        total += seconds;
        break;
      }
    }
  }
  return total;
}

/**
 * The bench's client: one keep-alive connection per loop (an undici `Client` each: a pool of N
 * would scan its connections for a free one on every request), bodies written as text. It stands
 * in for a trainer's workers on other machines, so it should take as little of this machine's CPU
 * as it can.
 */
async function post(connection: Client, path: string, body: string): Promise<Record<string, unknown>> {
  const response = await connection.request({ path, method: "POST", headers: JSON_HEADERS, body });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const JSON_HEADERS = { "content-type": "application/json" };

/** A conversation's messages as JSON text, grown by appending (no re-serialising of the turns already sent). */
class MessagesJson {
  #text: string;
  constructor(messages: ReadonlyArray<{ role: string; content: string }>) {
    this.#text = JSON.stringify(messages);
  }
  push(role: string, content: string): void {
    const item = `{"role":${JSON.stringify(role)},"content":${JSON.stringify(content)}}`;
    this.#text = this.#text === "[]" ? `[${item}]` : `${this.#text.slice(0, -1)},${item}]`;
  }
  get text(): string {
    return this.#text;
  }
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve(text));
      })
      .on("error", reject);
  });
}

/** The sum of a Prometheus metric's samples (every label set), or of one quantile label. */
function metricSum(text: string, name: string, labelFilter?: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name) || line.startsWith("#")) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== " " && rest[0] !== "{") continue;
    if (labelFilter !== undefined && !rest.includes(labelFilter)) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

interface Level {
  inFlight: number;
  steps: number;
  errors: number;
  windowS: number;
  throughput: number;
  callsPerStep: number;
  idealThroughput: number;
  ofIdeal: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  meanLatencyMs: number;
  littleInFlight: number;
  queuedCalls: number;
  cpuMsPerStep: number;
  mockCpuMsPerStep: number;
  clientCpuMsPerStep: number;
  eventLoopLagP99Ms: number;
  serverWarnings: string[];
}

async function measureLevel(inFlight: number): Promise<Level> {
  const mock = await startMockServer(["--latency-ms", String(latencyMs), "--model", "simulator"], {
    nodeArgs: profileDir !== undefined ? ["--cpu-prof", "--cpu-prof-dir", join(profileDir, "mock")] : [],
  });
  const dir = mkdtempSync(join(tmpdir(), "aeb-llm-server-bench-"));
  const configPath = join(dir, "simulator.yaml");
  writeFileSync(
    configPath,
    `simulator:\n  kind: llm\n  endpoint:\n    baseUrl: ${mock.url}\n    model: simulator\n    timeoutMs: 600000\n${cap !== undefined ? `    maxConcurrencyPerEndpoint: ${cap}\n` : ""}`,
  );
  const server = await serve(configPath, inFlight);
  const connections = Array.from({ length: inFlight }, () => new Client(server.url, { headersTimeout: 0, bodyTimeout: 0 }));
  const replyJson = JSON.stringify(REPLY);
  let measuring = false;
  let stopping = false;
  const latencies: number[] = [];
  let errors = 0;
  const loop = async (index: number): Promise<void> => {
    const connection = connections[index] as Client;
    let episode = 0;
    while (!stopping) {
      try {
        const reset = await post(connection, "/v1/reset", JSON.stringify({ seed: index, repeat: episode++ }));
        let token = reset.token as string;
        const messages = new MessagesJson(reset.messages as Array<{ role: string; content: string }>);
        let done = false;
        while (!done && !stopping) {
          const started = performance.now();
          const step = await post(
            connection,
            "/v1/step",
            `{"token":${JSON.stringify(token)},"messages":${messages.text},"reply":${replyJson}}`,
          );
          if (measuring) latencies.push(performance.now() - started);
          messages.push("assistant", REPLY);
          messages.push("user", step.message as string);
          token = step.token as string;
          done = step.done === true;
        }
      } catch (error) {
        if (stopping) return;
        errors += 1;
        if (errors <= 3) process.stderr.write(`step failed: ${(error as Error).message}\n`);
      }
    }
  };
  const loops = Array.from({ length: inFlight }, async (_, index) => {
    if (rampS > 0) await new Promise((resolve) => setTimeout(resolve, (index / inFlight) * rampS * 1000));
    return loop(index);
  });
  await new Promise((resolve) => setTimeout(resolve, warmupS * 1000));
  const metricsBefore = await get(`${server.url}/metrics`);
  const profiler = profileDir !== undefined ? new Session() : undefined;
  if (profiler !== undefined) {
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
  const cpuBefore = treeCpuSeconds(server.child.pid as number);
  const mockCpuBefore = mock.cpuSeconds() ?? Number.NaN;
  const clientCpuBefore = process.cpuUsage();
  measuring = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, durationS * 1000));
  measuring = false;
  const windowS = (performance.now() - started) / 1000;
  const cpuAfter = treeCpuSeconds(server.child.pid as number);
  const mockCpuAfter = mock.cpuSeconds() ?? Number.NaN;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  if (profiler !== undefined && profileDir !== undefined) {
    const { profile } = await profiler.post("Profiler.stop");
    profiler.disconnect();
    mkdirSync(join(profileDir, "client"), { recursive: true });
    writeFileSync(join(profileDir, "client", `client-${inFlight}.cpuprofile`), JSON.stringify(profile));
  }
  const metricsAfter = await get(`${server.url}/metrics`);
  stopping = true;
  const delta = (name: string) => metricSum(metricsAfter, name) - metricSum(metricsBefore, name);
  const serverSteps = delta("aeb_env_steps_total");
  const calls = delta("aeb_env_simulator_calls_total");
  const callsPerStep = serverSteps > 0 ? calls / serverSteps : Number.NaN;
  const stepsDone = latencies.length;
  const throughput = stepsDone / windowS;
  const idealThroughput = inFlight / ((callsPerStep * latencyMs) / 1000);
  const sorted = [...latencies].sort((a, b) => a - b);
  const meanLatencyMs = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  const level: Level = {
    inFlight,
    steps: stepsDone,
    errors,
    windowS,
    throughput,
    callsPerStep,
    idealThroughput,
    ofIdeal: throughput / idealThroughput,
    latencyP50Ms: percentile(sorted, 0.5),
    latencyP99Ms: percentile(sorted, 0.99),
    meanLatencyMs,
    littleInFlight: throughput * (meanLatencyMs / 1000),
    queuedCalls: delta("aeb_env_simulator_calls_queued_total"),
    cpuMsPerStep: ((cpuAfter - cpuBefore) * 1000) / Math.max(1, serverSteps),
    mockCpuMsPerStep: ((mockCpuAfter - mockCpuBefore) * 1000) / Math.max(1, serverSteps),
    clientCpuMsPerStep: (clientCpu.user + clientCpu.system) / 1000 / Math.max(1, serverSteps),
    eventLoopLagP99Ms: metricSum(metricsAfter, "aeb_nodejs_eventloop_lag_p99_seconds") * 1000,
    serverWarnings: server
      .log()
      .split("\n")
      .filter((line) => line.includes("warning") || line.includes("model calls at once")),
  };
  await Promise.all(connections.map((connection) => connection.destroy()));
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
  await Promise.allSettled(loops);
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
  return level;
}

async function main(): Promise<void> {
  const info = machine();
  const { out, print } = reportPrinter();
  print("# AEB environment server with an LLM simulated user");
  print();
  print(`machine: ${info.nproc} CPUs (${info.cpu}), node ${info.node}, load average at start ${info.loadAverage.join(" ")}`);
  print(`command: npm run bench:llm-server${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
  print(
    `setup: mock model at a fixed ${latencyMs} ms per call (own process); aeb serve --workers ${workers}, the two-stage LLM user of the full suite, ${cap === undefined ? "maxConcurrencyPerEndpoint unset (derived from --steps-in-flight)" : `maxConcurrencyPerEndpoint ${cap} in the config`}; ${warmupS} s warm-up, ${durationS} s measured per level`,
  );
  print();
  const results: Level[] = [];
  for (const inFlight of levels) {
    process.stderr.write(`${inFlight} steps in flight...\n`);
    results.push(await measureLevel(inFlight));
  }
  print(
    markdownTable(
      [
        "steps in flight",
        "steps",
        "errors",
        "model calls per step",
        "throughput steps/s",
        "ideal steps/s (N / (calls x latency))",
        "**of the ideal**",
        "step p50 ms",
        "step p99 ms",
        "Little's law: X x W",
        "calls queued on the cap",
        "server CPU ms/step",
        "mock model CPU ms/step",
        "bench client CPU ms/step",
        "event-loop lag p99 ms",
      ],
      results.map((level) => [
        level.inFlight,
        level.steps,
        level.errors,
        fixed(level.callsPerStep, 2),
        fixed(level.throughput, 1),
        fixed(level.idealThroughput, 1),
        `**${fixed(level.ofIdeal, 3)}**`,
        fixed(level.latencyP50Ms, 0),
        fixed(level.latencyP99Ms, 0),
        fixed(level.littleInFlight, 1),
        level.queuedCalls,
        fixed(level.cpuMsPerStep, 2),
        fixed(level.mockCpuMsPerStep, 2),
        fixed(level.clientCpuMsPerStep, 2),
        fixed(level.eventLoopLagP99Ms, 1),
      ]),
    ),
  );
  print();
  for (const level of results) for (const line of level.serverWarnings) print(`- at ${level.inFlight}: ${line.trim()}`);
  print();
  print(`load average at end ${machine().loadAverage.join(" ")}`);
  const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `llm-server-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  mkdirSync(join(jsonPath, ".."), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify({ machine: info, flags: Object.fromEntries(flags), results }, null, 2)}\n`);
  writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${out.join("\n")}\n`);
  process.stderr.write(`raw results: ${jsonPath}\n`);
}

await main();
