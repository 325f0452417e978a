/**
 * Load benchmark of the RL environment server (`npm run bench:server`).
 *
 * Every measurement starts `aeb serve` in its own process and drives it from this one.
 *
 * 1. short: autocannon drives POST /v1/step with 64 connections, cycling through real step
 *    requests (tokens, histories and replies recorded from episodes played by the reference agents;
 *    replaying a token with its own history is legitimate and deterministic), with one server
 *    process and with `--workers <cores>`. Steps/s, p50/p99 latency, and the server's CPU per step,
 *    also as a multiple of the floor's: a bare fastify server (`floor-server.ts`) parsing the same
 *    bodies and answering similar JSON, measured in the same round, just before (BENCH_ROUNDS rounds,
 *    default 1, interleaved).
 * 2. long: the same with replies of 20,000 characters (the API's maximum).
 * 3. batch: one server process while 5 MB batches of 256 long replies are sent back to back to
 *    /v1/step/batch; meanwhile a closed loop asks /healthz every 10 ms and another sends single
 *    short steps. Their latency percentiles say whether the event loop stayed free.
 * 4. linear: in this process, the CPU time of one episode step (`step()` of the built library, the
 *    offline user and the detectors) for replies of 2,500 to 20,000 characters of several kinds
 *    (ordinary text, and the shapes that used to make lexicon matching quadratic): the cost per
 *    step should grow in proportion to the reply's length.
 * 5. mock: `aeb serve --mock-user-latency L` (every simulated-user call sleeps L ms, as a model call
 *    would). A closed-loop client with sub-millisecond timing sends the short steps; the server's
 *    overhead per step = client-observed latency minus the time spent inside the simulated user
 *    (from the server's /metrics, so timer overshoot counts as model time).
 *
 * Settings (environment): BENCH_DURATION seconds per measurement (default 10), BENCH_CONNECTIONS
 * (default 64), BENCH_MOCK_LATENCY_MS per model call (default 25), BENCH_SECTIONS (comma-separated,
 * default short,long,batch,linear,mock), BENCH_CLI (the aeb CLI to measure, default this checkout's
 * dist/cli/main.js: point it at another build to compare), BENCH_SERVE_ARGS (extra `aeb serve`
 * flags), BENCH_CPU_PROF (a directory: one-process servers write a V8 CPU profile there),
 * BENCH_ROUNDS (rounds of the short rows, floor and servers interleaved; default 1),
 * the section `overhead` (not in the default list: CPU per in-process Environment.step over the
 * recorded short steps, with the offline user and with a user that answers at once),
 * BENCH_JSON (a file for the results as JSON).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";

/** The repository root: this file runs from dist/bench/ once compiled. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = process.env.BENCH_CLI ?? join(root, "dist", "cli", "main.js");
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const mockLatencyMs = Number(process.env.BENCH_MOCK_LATENCY_MS ?? 25);
const sections = new Set((process.env.BENCH_SECTIONS ?? "short,long,batch,linear,mock").split(","));
const serveArgs = (process.env.BENCH_SERVE_ARGS ?? "").split(" ").filter(Boolean);
const cpuProfileDir = process.env.BENCH_CPU_PROF;
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const floorServer = join(dirname(fileURLToPath(import.meta.url)), "floor-server.js");
/** Server processes to measure with the offline user: one, and one per core. */
const workerCounts = [...new Set([1, Math.max(1, cpus().length)])];
const LONG_REPLY_CHARS = 20_000;
const BATCH_SIZE = 256;
const secret = "bench-secret-bench-secret-bench-secret";
const bearer = "bench-token-bench-token";
const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };

/** The bits of the built library the bench uses (loaded at run time from the build BENCH_CLI belongs to). */
interface AebLibrary {
  createReferenceAgent(id: string): {
    reply(input: {
      history: Array<{ role: "user" | "assistant"; content: string }>;
      language: "en" | "zh";
      turnIndex: number;
      seed: number;
      dialogueId: string;
    }): Promise<{ text: string }>;
  };
  loadScenarioDirectory(path: string): Array<{ id: string; language: "en" | "zh"; preset: string; suite: string }>;
  filterScenarios<T>(scenarios: T[], filter: { suite?: string }): T[];
  BUILTIN_SCENARIO_DIR: string;
  OfflineSimulatedUser: new () => unknown;
  getPreset(name: string): unknown;
  startEpisode(scenario: unknown, preset: unknown, seed: number): Promise<unknown>;
  step(
    state: unknown,
    reply: { text: string },
    context: { scenario: unknown; preset: unknown; user: unknown; dialogueId: string },
  ): Promise<unknown>;
  Environment: new (options: { scenarios: unknown[]; user: unknown; secret: string }) => { step(request: unknown): Promise<unknown> };
}

interface Served {
  url: string;
  child: ChildProcess;
}

async function serve(extra: string[]): Promise<Served> {
  const workers = extra.includes("--workers") ? Number(extra[extra.indexOf("--workers") + 1]) : 1;
  const profile = cpuProfileDir !== undefined && workers === 1 ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : [];
  return spawnServer([...profile, cli, "serve", "--suite", "starter", "--port", "0", "--log-level", "warn", ...serveArgs, ...extra]);
}

/** Starts a server process and waits for its "listening on URL" line. */
async function spawnServer(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, AEB_SERVER_SECRET: secret, AEB_SERVER_TOKEN: bearer },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolveUrl(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`aeb serve exited (${code}) before listening`)));
  });
  return { url, child };
}

async function stop(served: Served): Promise<void> {
  const exited = new Promise((done) => served.child.once("exit", done));
  served.child.kill("SIGTERM");
  await exited;
}

/** CPU seconds (user + system) of a process and all its descendants (cluster workers), from /proc. */
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
  const inTree = (candidate: number): boolean => {
    for (let current: number | undefined = candidate; current !== undefined && current > 1; current = stats.get(current)?.parent)
      if (current === pid) return true;
    return false;
  };
  let total = 0;
  for (const [candidate, stat] of stats) if (inTree(candidate)) total += stat.seconds;
  return total;
}

async function post<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface StepBody {
  token: string;
  messages: Array<{ role: "user" | "assistant"; content: string }>;
  reply: string;
}

async function scenarioList(url: string): Promise<Array<{ id: string; language: "en" | "zh" }>> {
  return ((await (await fetch(`${url}/v1/scenarios`, { headers })).json()) as { scenarios: Array<{ id: string; language: "en" | "zh" }> })
    .scenarios;
}

/** Plays episodes with the reference agents and keeps every step request, to replay under load. */
async function recordSteps(url: string, library: AebLibrary): Promise<string[]> {
  const agentIds = ["attuned", "labeler", "advice", "formulaic", "sycophant"];
  const bodies: string[] = [];
  for (let seed = 0; seed < 20; seed += 1) {
    for (const scenario of await scenarioList(url)) {
      const agent = library.createReferenceAgent(agentIds[seed % agentIds.length] as string);
      const reset = await post<{ token: string; messages: StepBody["messages"]; done: boolean }>(`${url}/v1/reset`, {
        scenarioId: scenario.id,
        seed,
      });
      let state = { token: reset.token, messages: reset.messages, done: reset.done };
      while (!state.done) {
        const { text } = await agent.reply({
          history: state.messages,
          language: scenario.language,
          turnIndex: (state.messages.length - 1) / 2,
          seed,
          dialogueId: `bench/${scenario.id}/${seed}`,
        });
        const body: StepBody = { token: state.token, messages: state.messages, reply: text };
        bodies.push(JSON.stringify(body));
        const step = await post<{ token: string; message: string; done: boolean }>(`${url}/v1/step`, body);
        state = {
          token: step.token,
          messages: [...state.messages, { role: "assistant", content: text }, { role: "user", content: step.message }],
          done: step.done,
        };
      }
    }
  }
  return bodies;
}

/**
 * First steps with replies of LONG_REPLY_CHARS characters: the attuned agent's replies of every
 * scenario and seed, chained until long enough (a long, varied reply, as a verbose policy writes).
 */
async function recordLongSteps(url: string, library: AebLibrary, count: number): Promise<StepBody[]> {
  const agent = library.createReferenceAgent("attuned");
  const scenarios = await scenarioList(url);
  const bodies: StepBody[] = [];
  for (let index = 0; bodies.length < count; index += 1) {
    const scenario = scenarios[index % scenarios.length] as { id: string; language: "en" | "zh" };
    const seed = Math.floor(index / scenarios.length);
    const reset = await post<{ token: string; messages: StepBody["messages"] }>(`${url}/v1/reset`, { scenarioId: scenario.id, seed });
    let reply = "";
    for (let part = 0; reply.length < LONG_REPLY_CHARS; part += 1) {
      reply += `${(await agent.reply({ history: reset.messages, language: scenario.language, turnIndex: part % 8, seed: seed * 100 + part, dialogueId: `bench/${scenario.id}/${seed}` })).text} `;
    }
    bodies.push({ token: reset.token, messages: reset.messages, reply: reply.slice(0, LONG_REPLY_CHARS) });
  }
  return bodies;
}

async function cannon(url: string, bodies: string[], seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `${url}/v1/step`,
    connections,
    duration: seconds,
    method: "POST",
    headers,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }),
      },
    ],
  });
}

/** One keep-alive HTTP client with sub-millisecond timing. */
function timedClient(url: string, clients: number) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; ms: number }>((done, fail) => {
      const started = performance.now();
      const request = http.request(
        {
          hostname: target.hostname,
          port: target.port,
          path,
          method,
          agent,
          headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          response.on("end", () => done({ status: response.statusCode ?? 0, ms: performance.now() - started }));
        },
      );
      request.on("error", fail);
      request.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** Closed loop: `clients` clients, each sending its next step as soon as the last is answered. */
async function closedLoop(
  url: string,
  bodies: string[],
  seconds: number,
  clients: number,
): Promise<{ latencies: number[]; errors: number }> {
  const client = timedClient(url, clients);
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const answer = await client.send("POST", "/v1/step", bodies[next++ % bodies.length] as string).catch(() => ({ status: 0, ms: 0 }));
        if (answer.status === 200) latencies.push(answer.ms);
        else errors += 1;
      }
    }),
  );
  client.close();
  return { latencies, errors };
}

async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^(\S+) (\S+)$/.exec(line);
    if (match) values.set(match[1] as string, Number(match[2]));
  }
  return values;
}

const sumOf = (metrics: Map<string, number>, prefix: string) =>
  [...metrics.entries()].filter(([name]) => name.startsWith(prefix)).reduce((sum, [, value]) => sum + value, 0);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

interface ThroughputRow {
  replies: "short" | "long";
  /** `aeb serve`, or the bare fastify floor. */
  server: "aeb" | "floor";
  round: number;
  workers: number;
  stepsPerSecond: number;
  latencyMs: { p50: number; p99: number; mean: number };
  serverCpuMsPerStep: number;
  /** This process's CPU (autocannon) per request. */
  clientCpuMsPerStep: number;
  non2xx: number;
  errors: number;
}

/** Sends one step and waits for its answer. */
async function firstStep(url: string, body: string): Promise<void> {
  const response = await fetch(`${url}/v1/step`, { method: "POST", headers, body });
  if (!response.ok) throw new Error(`the first step was answered ${response.status}: ${await response.text()}`);
}

/** autocannon at `connections` connections against one server configuration. */
async function throughput(
  replies: "short" | "long",
  workers: number,
  bodies: string[],
  server: ThroughputRow["server"] = "aeb",
  round = 1,
): Promise<ThroughputRow> {
  const served = server === "floor" ? await spawnServer([floorServer]) : await serve(["--workers", String(workers)]);
  // The first step of a process pays one-time work (the offline user trains its recogniser: seconds
  // on a busy machine); it is answered before the timed warm-up starts, so no row measures it.
  // With --workers, several on their own connections, so every process gets one.
  await Promise.all(Array.from({ length: 4 * workers }, () => firstStep(served.url, bodies[0] as string)));
  await cannon(served.url, bodies, Math.min(3, duration)); // warm-up
  const cpuBefore = treeCpuSeconds(served.child.pid as number);
  const clientBefore = process.cpuUsage();
  const result = await cannon(served.url, bodies, duration);
  const clientCpu = process.cpuUsage(clientBefore);
  const cpuSeconds = treeCpuSeconds(served.child.pid as number) - cpuBefore;
  await stop(served);
  return {
    replies,
    server,
    round,
    workers,
    stepsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average },
    serverCpuMsPerStep: (cpuSeconds * 1000) / Math.max(1, result.requests.total),
    clientCpuMsPerStep: (clientCpu.user + clientCpu.system) / 1000 / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

function printThroughput(rows: ThroughputRow[], replies: "short" | "long"): void {
  const chosen = rows.filter((row) => row.replies === replies);
  if (chosen.length === 0) return;
  console.log(
    `## Offline simulated user, ${replies === "long" ? `${LONG_REPLY_CHARS.toLocaleString("en")}-character` : "reference-agent"} replies: POST /v1/step, ${connections} connections, ${duration} s per row (autocannon)\n`,
  );
  console.log(
    "| round | server | processes | steps/s (mean) | latency p50 | latency p99 | latency mean | server CPU per step | CPU / floor's | autocannon CPU per request | non-2xx | errors |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const row of chosen) {
    const floor = chosen.find((candidate) => candidate.server === "floor" && candidate.round === row.round);
    const ratio = floor === undefined ? "-" : `${fixed(row.serverCpuMsPerStep / floor.serverCpuMsPerStep, 1)}x`;
    const name = row.server === "floor" ? "bare fastify (floor)" : "aeb serve";
    console.log(
      `| ${row.round} | ${name} | ${row.workers} | ${Math.round(row.stepsPerSecond)} | ${row.latencyMs.p50} ms | ${row.latencyMs.p99} ms | ${fixed(row.latencyMs.mean)} ms | ${fixed(row.serverCpuMsPerStep, 3)} ms | ${ratio} | ${fixed(row.clientCpuMsPerStep, 3)} ms | ${row.non2xx} | ${row.errors} |`,
    );
  }
  console.log("");
}

interface BatchRow {
  batches: number;
  batchBytes: number;
  batchMs: { mean: number; max: number };
  healthzMs: { count: number; p50: number; p99: number; max: number };
  singleStepMs: { count: number; p50: number; p99: number; max: number };
  failures: number;
}

/** /healthz and single steps while 5 MB batches of long replies are played back to back. */
async function underBatches(library: AebLibrary, shortBodies: string[]): Promise<BatchRow> {
  const served = await serve([]);
  const long = await recordLongSteps(served.url, library, 32);
  const batchBody = JSON.stringify({ steps: Array.from({ length: BATCH_SIZE }, (_, index) => long[index % long.length]) });
  const client = timedClient(served.url, 4);
  // Warm-up: one batch and a few single steps.
  await client.send("POST", "/v1/step/batch", batchBody);
  for (const body of shortBodies.slice(0, 50)) await client.send("POST", "/v1/step", body);
  const end = performance.now() + duration * 1000;
  const batchMs: number[] = [];
  const healthzMs: number[] = [];
  const singleMs: number[] = [];
  let failures = 0;
  const batches = (async () => {
    while (performance.now() < end) {
      const answer = await client.send("POST", "/v1/step/batch", batchBody);
      if (answer.status === 200) batchMs.push(answer.ms);
      else failures += 1;
    }
  })();
  // Health checks and single steps start once the first batch is on its way, and stop with the last.
  await new Promise((resolveSoon) => setTimeout(resolveSoon, 20));
  let batchesDone = false;
  void batches.then(() => (batchesDone = true));
  const health = (async () => {
    while (!batchesDone) {
      const answer = await client.send("GET", "/healthz");
      if (answer.status === 200) healthzMs.push(answer.ms);
      else failures += 1;
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 10));
    }
  })();
  const singles = (async () => {
    for (let index = 0; !batchesDone; index += 1) {
      const answer = await client.send("POST", "/v1/step", shortBodies[index % shortBodies.length] as string);
      if (answer.status === 200) singleMs.push(answer.ms);
      else failures += 1;
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 10));
    }
  })();
  await Promise.all([batches, health, singles]);
  client.close();
  await stop(served);
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? Number.NaN };
  };
  return {
    batches: batchMs.length,
    batchBytes: Buffer.byteLength(batchBody),
    batchMs: { mean: batchMs.reduce((sum, value) => sum + value, 0) / Math.max(1, batchMs.length), max: Math.max(...batchMs) },
    healthzMs: stats(healthzMs),
    singleStepMs: stats(singleMs),
    failures,
  };
}

/** Replies of a given length: ordinary text, and shapes that once made matching quadratic. */
const REPLY_KINDS: Record<string, (length: number) => string> = {
  "ordinary text": (length) =>
    "It sounds like you're feeling hurt and frustrated that your manager blamed you in front of everyone. That was unfair, and you didn't deserve it. What happened after the meeting? "
      .repeat(Math.ceil(length / 170))
      .slice(0, length),
  "blank lines": (length) => "\n \t".repeat(length / 3).slice(0, length),
  "unclosed “ quotes": (length) => "“a ".repeat(length / 3).slice(0, length),
  "one word full of apostrophes": (length) => `a${"'".repeat(length - 2)}b`,
};
const LINEAR_LENGTHS = [2_500, 5_000, 10_000, 20_000];

/**
 * Mean CPU milliseconds of one step, by reply kind and length (in this process, the measured
 * build's library): 30 steps after 3 warm-up ones, garbage collection included, so a step is
 * charged for the memory it allocates whenever the collector happens to run.
 */
async function stepCpu(library: AebLibrary): Promise<Record<string, Record<number, number>>> {
  const scenario = library
    .filterScenarios(library.loadScenarioDirectory(library.BUILTIN_SCENARIO_DIR), { suite: "starter" })
    .find((item) => item.language === "en")!;
  const preset = library.getPreset(scenario.preset);
  const user = new library.OfflineSimulatedUser();
  const state = await library.startEpisode(scenario, preset, 1);
  const table: Record<string, Record<number, number>> = {};
  for (const [kind, make] of Object.entries(REPLY_KINDS)) {
    table[kind] = {};
    for (const length of LINEAR_LENGTHS) {
      const reply = make(length);
      const play = () => library.step(state, { text: reply }, { scenario, preset, user, dialogueId: "bench" });
      for (let run = 0; run < 3; run += 1) await play();
      const before = process.cpuUsage();
      for (let run = 0; run < 30; run += 1) await play();
      const used = process.cpuUsage(before);
      (table[kind] as Record<number, number>)[length] = (used.user + used.system) / 1000 / 30;
    }
  }
  return table;
}

async function mockLlm(bodies: string[]): Promise<Array<Record<string, number>>> {
  const mock = await serve(["--mock-user-latency", String(mockLatencyMs)]);
  await closedLoop(mock.url, bodies, Math.min(3, duration), connections); // warm-up
  const rows: Array<Record<string, number>> = [];
  for (const clients of [1, connections]) {
    const before = await scrape(mock.url);
    const run = await closedLoop(mock.url, bodies, duration, clients);
    const after = await scrape(mock.url);
    const steps =
      sumOf(after, 'aeb_env_steps_total{api="stateless",outcome="ok"}') -
      sumOf(before, 'aeb_env_steps_total{api="stateless",outcome="ok"}');
    const modelSeconds =
      sumOf(after, "aeb_env_simulator_call_duration_seconds_sum") - sumOf(before, "aeb_env_simulator_call_duration_seconds_sum");
    const httpSeconds =
      sumOf(after, 'aeb_http_request_duration_seconds_sum{route="/v1/step"') -
      sumOf(before, 'aeb_http_request_duration_seconds_sum{route="/v1/step"');
    const sorted = [...run.latencies].sort((a, b) => a - b);
    const meanLatency = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
    const modelPerStep = (modelSeconds / steps) * 1000;
    rows.push({
      clients,
      steps,
      stepsPerSecond: run.latencies.length / duration,
      meanLatency,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      modelPerStep,
      overheadClient: meanLatency - modelPerStep,
      overheadServer: (httpSeconds / steps) * 1000 - modelPerStep,
      errors: run.errors,
    });
  }
  await stop(mock);
  return rows;
}

/**
 * What the server adds around the simulated user, without HTTP: CPU per `Environment.step` over the
 * recorded short steps, with the offline user and with a user that answers at once (same id, so the
 * tokens verify), interleaved rounds; the minimum of the rounds is the least disturbed figure.
 */
async function stepOverhead(library: AebLibrary, bodies: string[]): Promise<{ offlineUs: number[]; noUserUs: number[] }> {
  const scenarios = library.filterScenarios(library.loadScenarioDirectory(library.BUILTIN_SCENARIO_DIR), { suite: "starter" });
  const answersAtOnce = {
    id: "offline",
    cpuBound: true,
    appraise: async (input: { memory: Record<string, unknown> }) => ({ simulatorDelta: 1, details: {}, memory: input.memory }),
    reply: async () => ({ text: "I see.", left: false }),
  };
  const environments = {
    offline: new library.Environment({ scenarios, user: new library.OfflineSimulatedUser(), secret }),
    noUser: new library.Environment({ scenarios, user: answersAtOnce, secret }),
  };
  const microsPerStep = async (environment: { step(request: unknown): Promise<unknown> }, count: number) => {
    const started = process.cpuUsage();
    for (let index = 0; index < count; index += 1) await environment.step(JSON.parse(bodies[index % bodies.length] as string));
    const used = process.cpuUsage(started);
    return (used.user + used.system) / count;
  };
  await microsPerStep(environments.offline, bodies.length); // training and warm-up
  await microsPerStep(environments.noUser, bodies.length);
  const offlineUs: number[] = [];
  const noUserUs: number[] = [];
  for (let round = 0; round < Math.max(3, rounds); round += 1) {
    offlineUs.push(await microsPerStep(environments.offline, bodies.length));
    noUserUs.push(await microsPerStep(environments.noUser, bodies.length));
  }
  return { offlineUs, noUserUs };
}

async function main(): Promise<void> {
  // Environment is on the `aeb/server` face (dist/server/index.js), the rest on the main entry.
  const library = {
    ...(await import(pathToFileURL(join(dirname(cli), "..", "index.js")).href)),
    ...(await import(pathToFileURL(join(dirname(cli), "..", "server", "index.js")).href)),
  } as AebLibrary;
  const loadBefore = loadavg()[0] ?? 0;
  console.log(
    `# AEB environment server benchmark\n\nmachine: ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; server and load generator on the same machine, in separate processes; load average before: ${loadBefore.toFixed(2)}; CLI: ${cli}${serveArgs.length > 0 ? ` ${serveArgs.join(" ")}` : ""}\n`,
  );

  const recorder = await serve([]);
  const bodies = await recordSteps(recorder.url, library);
  const longBodies = sections.has("long") ? (await recordLongSteps(recorder.url, library, 64)).map((body) => JSON.stringify(body)) : [];
  await stop(recorder);

  const rows: ThroughputRow[] = [];
  if (sections.has("short")) {
    for (let round = 1; round <= rounds; round += 1) {
      rows.push(await throughput("short", 1, bodies, "floor", round));
      for (const workers of workerCounts) rows.push(await throughput("short", workers, bodies, "aeb", round));
    }
  }
  printThroughput(rows, "short");
  if (sections.has("short") && rounds > 1) {
    for (const workers of workerCounts) {
      const ratios = Array.from({ length: rounds }, (_, index) => index + 1).map((round) => {
        const find = (server: ThroughputRow["server"], processes: number) =>
          rows.find(
            (row) => row.replies === "short" && row.server === server && row.workers === processes && row.round === round,
          ) as ThroughputRow;
        return find("aeb", workers).serverCpuMsPerStep / find("floor", 1).serverCpuMsPerStep;
      });
      console.log(
        `aeb serve with ${workers} process(es): CPU per short step ${fixed(median(ratios), 1)}x the floor's (median of ${rounds} rounds: ${ratios.map((ratio) => fixed(ratio, 1)).join(", ")})`,
      );
    }
    console.log("");
  }
  if (sections.has("short"))
    console.log(
      `(${bodies.length} distinct step requests recorded from episodes of the reference agents, replayed in turn; server CPU = all its processes)\n`,
    );
  let overhead: { offlineUs: number[]; noUserUs: number[] } | undefined;
  if (sections.has("overhead")) {
    overhead = await stepOverhead(library, bodies);
    const floors = rows.filter((row) => row.server === "floor").map((row) => row.serverCpuMsPerStep * 1000);
    const shown = (values: number[]) =>
      `${fixed(Math.min(...values), 0)} µs (rounds: ${values.map((value) => fixed(value, 0)).join(", ")})`;
    console.log(`## In-process Environment.step over the same ${bodies.length} requests (no HTTP), CPU per step\n`);
    console.log(`- offline user: ${shown(overhead.offlineUs)}`);
    console.log(`- a user that answers at once (what the server adds around the user): ${shown(overhead.noUserUs)}`);
    if (floors.length > 0)
      console.log(
        `- that, over the floor's whole HTTP step (${fixed(median(floors), 0)} µs, median): ${fixed(Math.min(...overhead.noUserUs) / median(floors), 1)}x`,
      );
    console.log("");
  }
  if (sections.has("long")) for (const workers of workerCounts) rows.push(await throughput("long", workers, longBodies));
  printThroughput(rows, "long");

  let batch: BatchRow | undefined;
  if (sections.has("batch")) {
    batch = await underBatches(library, bodies);
    console.log(
      `## /healthz and single steps while ${(batch.batchBytes / 1e6).toFixed(1)} MB batches of ${BATCH_SIZE} ${LONG_REPLY_CHARS.toLocaleString("en")}-character replies are played back to back (one server process, ${duration} s)\n`,
    );
    console.log("| | requests | p50 | p99 | max |");
    console.log("|---|---|---|---|---|");
    console.log(
      `| GET /healthz (every 10 ms) | ${batch.healthzMs.count} | ${fixed(batch.healthzMs.p50)} ms | ${fixed(batch.healthzMs.p99)} ms | ${fixed(batch.healthzMs.max)} ms |`,
    );
    console.log(
      `| POST /v1/step, short reply (every 10 ms) | ${batch.singleStepMs.count} | ${fixed(batch.singleStepMs.p50)} ms | ${fixed(batch.singleStepMs.p99)} ms | ${fixed(batch.singleStepMs.max)} ms |`,
    );
    console.log(
      `\n${batch.batches} batches, ${fixed(batch.batchMs.mean, 0)} ms each on average (max ${fixed(batch.batchMs.max, 0)} ms); failures: ${batch.failures}\n`,
    );
  }

  let linear: Record<string, Record<number, number>> | undefined;
  if (sections.has("linear")) {
    linear = await stepCpu(library);
    console.log(
      "## CPU of one episode step by reply length (mean of 30, garbage collection included; in-process, offline user and detectors)\n",
    );
    console.log(`| reply | ${LINEAR_LENGTHS.map((length) => `${length.toLocaleString("en")} chars`).join(" | ")} | 20,000 / 10,000 |`);
    console.log(`|---|${LINEAR_LENGTHS.map(() => "---").join("|")}|---|`);
    for (const [kind, row] of Object.entries(linear)) {
      console.log(
        `| ${kind} | ${LINEAR_LENGTHS.map((length) => `${fixed(row[length] as number)} ms`).join(" | ")} | ${fixed((row[20_000] as number) / (row[10_000] as number), 1)}x |`,
      );
    }
    console.log("");
  }

  let mockRows: Array<Record<string, number>> = [];
  if (sections.has("mock")) {
    mockRows = await mockLlm(bodies);
    console.log(`## Mock LLM user: ${mockLatencyMs} ms per simulated-user call (2 calls per step), ${duration} s per row\n`);
    console.log(
      "| clients | steps/s | latency mean | p50 | p99 | model time per step | overhead per step (client-observed) | overhead per step (inside the server) | errors |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const row of mockRows) {
      console.log(
        `| ${row.clients} | ${fixed(row.stepsPerSecond as number, 0)} | ${fixed(row.meanLatency as number)} ms | ${fixed(row.p50 as number)} ms | ${fixed(row.p99 as number)} ms | ${fixed(row.modelPerStep as number)} ms | ${fixed(row.overheadClient as number)} ms | ${fixed(row.overheadServer as number)} ms | ${row.errors} |`,
      );
    }
    console.log(
      "\noverhead (client-observed) = mean latency seen by the client - mean time inside the simulated user per step (server /metrics);\noverhead (inside the server) = mean time from request received to response sent - the same model time.\n",
    );
  }
  console.log(`load average after: ${(loadavg()[0] ?? 0).toFixed(2)} (other work on the machine lowers these numbers)`);

  const summary = {
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg()[0],
    },
    cli,
    serveArgs,
    connections,
    durationSeconds: duration,
    throughput: rows,
    underBatches: batch,
    stepCpuMs: linear,
    stepOverheadUs: overhead,
    mockLlm: sections.has("mock") ? { latencyPerCallMs: mockLatencyMs, rows: mockRows } : undefined,
  };
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(summary, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
