/**
 * Load benchmark of the RL environment server (`npm run bench:server`).
 *
 * 1. Offline user: `aeb serve` in its own process; autocannon drives POST /v1/step with 64
 *    concurrent connections, cycling through real step requests (tokens, histories and replies
 *    recorded from episodes played by the reference agents; replaying a token with its own history
 *    is legitimate and deterministic). Reports steps/s and p50/p99 latency.
 * 2. Mock LLM user: `aeb serve --mock-user-latency L` (every simulated-user call sleeps L ms, as a
 *    model call would). A closed-loop client with sub-millisecond timing sends the same steps;
 *    the server's own overhead per step = client-observed latency minus the time spent inside the
 *    simulated user (from the server's /metrics, so timer overshoot counts as model time).
 *
 * Settings (environment): BENCH_DURATION seconds per measurement (default 10), BENCH_CONNECTIONS
 * (default 64), BENCH_MOCK_LATENCY_MS per model call (default 25), BENCH_JSON file for the results.
 * The offline measurement runs with one server process and with `--workers <cores>`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";

/** The repository root: this file runs from dist/bench/ once compiled. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = join(root, "dist", "cli", "main.js");
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const mockLatencyMs = Number(process.env.BENCH_MOCK_LATENCY_MS ?? 25);
/** Server processes to measure with the offline user: one, and one per core. */
const workerCounts = [...new Set([1, Math.max(1, cpus().length)])];
const secret = "bench-secret-bench-secret-bench-secret";
const bearer = "bench-token";
const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };

/** The bits of the built library the bench uses (loaded from dist/ at run time). */
interface AebLibrary {
  createReferenceAgent(id: string): {
    reply(input: { history: Array<{ role: "user" | "assistant"; content: string }>; language: "en" | "zh"; turnIndex: number; seed: number; dialogueId: string }): Promise<{ text: string }>;
  };
}

interface Served {
  url: string;
  child: ChildProcess;
}

async function serve(extra: string[]): Promise<Served> {
  const child = spawn(process.execPath, [cli, "serve", "--suite", "starter", "--port", "0", "--log-level", "warn", ...extra], {
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

/** Plays episodes with the reference agents and keeps every step request, to replay under load. */
async function recordSteps(url: string, library: AebLibrary): Promise<string[]> {
  const scenarios = (await (await fetch(`${url}/v1/scenarios`, { headers })).json()) as { scenarios: Array<{ id: string; language: "en" | "zh" }> };
  const agentIds = ["attuned", "labeler", "advice", "formulaic", "sycophant"];
  const bodies: string[] = [];
  for (let seed = 0; seed < 20; seed += 1) {
    for (const scenario of scenarios.scenarios) {
      const agent = library.createReferenceAgent(agentIds[seed % agentIds.length] as string);
      const reset = await post<{ token: string; messages: StepBody["messages"]; done: boolean }>(`${url}/v1/reset`, { scenarioId: scenario.id, seed });
      let state = { token: reset.token, messages: reset.messages, done: reset.done };
      while (!state.done) {
        const { text } = await agent.reply({ history: state.messages, language: scenario.language, turnIndex: (state.messages.length - 1) / 2, seed, dialogueId: `bench/${scenario.id}/${seed}` });
        const body: StepBody = { token: state.token, messages: state.messages, reply: text };
        bodies.push(JSON.stringify(body));
        const step = await post<{ token: string; message: string; done: boolean }>(`${url}/v1/step`, body);
        state = { token: step.token, messages: [...state.messages, { role: "assistant", content: text }, { role: "user", content: step.message }], done: step.done };
      }
    }
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

/** Closed loop with precise timing: `connections` clients, each sending its next step as soon as the last is answered. */
async function closedLoop(url: string, bodies: string[], seconds: number, clients: number): Promise<{ latencies: number[]; errors: number }> {
  const target = new URL(`${url}/v1/step`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + seconds * 1000;
  const once = (body: string) =>
    new Promise<number>((done, fail) => {
      const request = http.request(
        { hostname: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
        (response) => {
          response.resume();
          response.on("end", () => done(response.statusCode ?? 0));
        },
      );
      request.on("error", fail);
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const body = bodies[next++ % bodies.length] as string;
        const started = performance.now();
        const status = await once(body).catch(() => 0);
        if (status === 200) latencies.push(performance.now() - started);
        else errors += 1;
      }
    }),
  );
  agent.destroy();
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

const sumOf = (metrics: Map<string, number>, prefix: string) => [...metrics.entries()].filter(([name]) => name.startsWith(prefix)).reduce((sum, [, value]) => sum + value, 0);

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

async function main(): Promise<void> {
  const library = (await import(pathToFileURL(join(root, "dist", "index.js")).href)) as AebLibrary;
  const loadBefore = loadavg()[0] ?? 0;
  console.log(`# AEB environment server benchmark\n\nmachine: ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}; server and load generator on the same machine, in separate processes; load average before: ${loadBefore.toFixed(2)}\n`);

  // 1. Offline user: throughput and latency under autocannon, with one server process and with one per core.
  const offlineRows: Array<{ workers: number; result: autocannon.Result }> = [];
  let bodies: string[] = [];
  for (const workers of workerCounts) {
    const offline = await serve(["--workers", String(workers)]);
    if (bodies.length === 0) bodies = await recordSteps(offline.url, library);
    await cannon(offline.url, bodies, Math.min(3, duration)); // warm-up
    offlineRows.push({ workers, result: await cannon(offline.url, bodies, duration) });
    await stop(offline);
  }
  console.log(`## Offline simulated user: POST /v1/step, ${connections} connections, ${duration} s per row (autocannon)\n`);
  console.log(`| server processes | steps/s (mean) | latency p50 | latency p99 | latency mean | non-2xx | errors |`);
  console.log(`|---|---|---|---|---|---|---|`);
  for (const { workers, result } of offlineRows) {
    console.log(`| ${workers} | ${Math.round(result.requests.average)} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${fixed(result.latency.average)} ms | ${result.non2xx} | ${result.errors} |`);
  }
  console.log(`\n(${bodies.length} distinct step requests recorded from episodes of the reference agents, replayed in turn)\n`);

  // 2. Mock LLM user: the server's overhead per step beyond the model's own latency.
  const mock = await serve(["--mock-user-latency", String(mockLatencyMs)]);
  await closedLoop(mock.url, bodies, Math.min(3, duration), connections); // warm-up
  const rows: Array<Record<string, number>> = [];
  for (const clients of [1, connections]) {
    const before = await scrape(mock.url);
    const run = await closedLoop(mock.url, bodies, duration, clients);
    const after = await scrape(mock.url);
    const steps = sumOf(after, 'aeb_env_steps_total{api="stateless",outcome="ok"}') - sumOf(before, 'aeb_env_steps_total{api="stateless",outcome="ok"}');
    const modelSeconds = sumOf(after, "aeb_env_simulator_call_duration_seconds_sum") - sumOf(before, "aeb_env_simulator_call_duration_seconds_sum");
    const httpSeconds = sumOf(after, 'aeb_http_request_duration_seconds_sum{route="/v1/step"') - sumOf(before, 'aeb_http_request_duration_seconds_sum{route="/v1/step"');
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
  console.log(`## Mock LLM user: ${mockLatencyMs} ms per simulated-user call (2 calls per step), ${duration} s per row\n`);
  console.log(`| clients | steps/s | latency mean | p50 | p99 | model time per step | overhead per step (client-observed) | overhead per step (inside the server) | errors |`);
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const row of rows) {
    console.log(
      `| ${row.clients} | ${fixed(row.stepsPerSecond as number, 0)} | ${fixed(row.meanLatency as number)} ms | ${fixed(row.p50 as number)} ms | ${fixed(row.p99 as number)} ms | ${fixed(row.modelPerStep as number)} ms | ${fixed(row.overheadClient as number)} ms | ${fixed(row.overheadServer as number)} ms | ${row.errors} |`,
    );
  }
  console.log(`\nload average after: ${(loadavg()[0] ?? 0).toFixed(2)} (other work on the machine lowers these numbers)`);
  console.log(
    "\noverhead (client-observed) = mean latency seen by the client - mean time inside the simulated user per step (server /metrics);\noverhead (inside the server) = mean time from request received to response sent - the same model time.",
  );

  const summary = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0] },
    offline: offlineRows.map(({ workers, result }) => ({
      workers,
      connections,
      durationSeconds: duration,
      stepsPerSecond: result.requests.average,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average },
      non2xx: result.non2xx,
      errors: result.errors,
    })),
    mockLlm: { latencyPerCallMs: mockLatencyMs, rows },
  };
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(summary, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
