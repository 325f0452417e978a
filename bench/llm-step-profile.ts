/**
 * `npm run bench:llm-step`: the CPU the environment server spends on one step of the two-stage LLM
 * simulated user, in process (no HTTP in front of the server), so that only our own code is timed.
 *
 * The server's `Environment` (token, state machine, detectors) plays episodes of the `full` suite
 * with the LLM user that `aeb serve --config` builds (PluginFactory, the run config's defaults, the
 * openai SDK client), `--concurrency` episodes at once, each replying the same line until it ends,
 * as bench/llm-user-server.ts's clients do.
 *
 * The model is one of:
 * - `--transport mock` (the default): `aeb mock-llm --aeb` in its own process (latency 0), reached
 *   as `aeb serve` reaches a model server (plain completions over undici, direct-completion.ts),
 *   so the HTTP client's CPU is counted and the model's is not.
 * - `--transport stub`: the SDK's `fetch` is a function in this process that answers each request
 *   with the completion the mock would write (the same reply policy). Its own synchronous work
 *   (reading the request, the policy, writing the completion) is timed and subtracted. A client
 *   given a fetch goes through the openai SDK (the path tests and proxies take), so this measures
 *   that path, without sockets.
 * Printed: CPU µs per step and per model call (user + system of this process, less the stub's
 * CPU), and with `--cpu-prof` (default on) the functions with the most self time over the measured
 * window of a second, identical run under V8's sampling profiler (node:inspector), grouped also
 * by where their code lives (our build's file, a package, node's internals).
 *
 * Flags: --steps 4000 (measured, after --warmup 400)  --concurrency 64  --transport mock|stub
 *        --fused (one call per turn)  --cpu-prof false  --top 25  --json FILE
 *        --read-profile FILE (only print the tables of a .cpuprofile, e.g. from bench:llm-server --profile-dir)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { createOpenAIChatModel } from "../src/llm/openai-chat-model.js";
import { BufferedResponse, type FetchFn } from "../src/llm/undici-fetch.js";
import { PluginFactory } from "../src/runner/plugins.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { Environment } from "../src/server/environment.js";
import { simulatorCapacity } from "../src/server/simulator-capacity.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { countWords } from "../src/testing/mock-llm-responses.js";
import { fixed, machine, markdownTable, parseArgs, reportPrinter, startMockServer, type MockServer } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const steps = Number(flags.get("steps") ?? 4000);
const warmup = Number(flags.get("warmup") ?? 400);
const concurrency = Number(flags.get("concurrency") ?? 64);
const transport = flags.get("transport") ?? "mock";
const fused = flags.get("fused") === "true";
const cpuProfile = (flags.get("cpu-prof") ?? "true") !== "false";
const top = Number(flags.get("top") ?? 25);
for (const [name, value] of [
  ["steps", steps],
  ["concurrency", concurrency],
  ["top", top],
] as const) {
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`--${name} must be a positive integer, got ${flags.get(name)}`);
}
if (!(Number.isInteger(warmup) && warmup >= 0)) throw new Error(`--warmup must be a non-negative integer, got ${flags.get("warmup")}`);
if (transport !== "stub" && transport !== "mock") throw new Error(`--transport must be stub or mock, got ${transport}`);

const REPLY = "That sounds really hard. What happened after that?";
const STUB_URL = "http://stub.invalid/v1";

interface Measured {
  transport: string;
  fused: boolean;
  concurrency: number;
  steps: number;
  calls: number;
  cpuUsPerStep: number;
  cpuUsPerCall: number;
  stubUsPerStep: number;
  wallS: number;
}

/** Milliseconds the stub spent on its own work (subtracted from the measured CPU). */
let stubMs = 0;

/** The SDK's fetch answered in process with the completion `aeb mock-llm --aeb` would send. */
const stubFetch: FetchFn = (async (_input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  // CPU, not wall time: on a shared machine the process can be descheduled inside the stub.
  const started = process.cpuUsage();
  const body = JSON.parse(init.body as string) as Record<string, unknown>;
  const messages = body.messages as { role: string; content: string }[];
  // The policy answers the simulator's roles synchronously; nothing else runs inside the timed part.
  const reply = aebMockReply({ n: 0, model: String(body.model), messages, stream: false, body });
  if (reply instanceof Promise) throw new Error("the stub expects the mock policy to answer the simulator's roles synchronously");
  const content = typeof reply === "string" ? reply : reply.content;
  const text = JSON.stringify({
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: countWords(messages.map((m) => m.content).join(" ")), completion_tokens: countWords(content), total_tokens: 0 },
  });
  const spent = process.cpuUsage(started);
  stubMs += (spent.user + spent.system) / 1000;
  return new BufferedResponse(text, { status: 200, headers: { "content-type": "application/json" } });
}) as FetchFn;

/** Told when the measured window starts and ends (the profiler is attached to it). */
interface Window {
  start(): Promise<void> | void;
  end(): Promise<void> | void;
}

async function measure(window: Window = { start: () => undefined, end: () => undefined }): Promise<Measured> {
  let mock: MockServer | undefined;
  if (transport === "mock") mock = await startMockServer(["--latency-ms", "0", "--model", "simulator"]);
  const baseUrl = mock?.url ?? STUB_URL;
  const loaded = parseRunConfig(
    { simulator: { kind: "llm", fused, endpoint: { baseUrl, model: "simulator", timeoutMs: 600_000 } }, scenarios: { suite: "full" } },
    "bench/llm-step-profile",
  );
  // As `aeb serve --steps-in-flight <concurrency>` derives the per-endpoint cap.
  const { simulator } = simulatorCapacity(loaded.simulator, concurrency, 1);
  const scenarios = selectScenarios({ ...loaded, simulator });
  let calls = 0;
  const user = new PluginFactory({
    modelFactory: (role, config) =>
      createOpenAIChatModel(config, {
        role,
        ...(transport === "stub" ? { fetch: stubFetch } : {}),
        onCall: () => (calls += 1),
      }),
  }).simulatedUser(simulator, scenarios);
  const environment = new Environment({ scenarios, user, secret: "bench-secret-bench-secret-bench-secret", drawSeed: () => 0 });

  let played = 0;
  let measuring = false;
  let startCpu = process.cpuUsage();
  let startWall = 0;
  let startCalls = 0;
  let startStub = 0;
  let measuredSteps = 0;
  const total = warmup + steps;
  const loop = async (index: number): Promise<void> => {
    let episode = 0;
    while (played < total) {
      const reset = await environment.reset({ seed: index, repeat: episode++ });
      let token = reset.token;
      const messages = reset.messages.map((message) => ({ ...message }));
      let done = false;
      while (!done && played < total) {
        const { response } = await environment.step({ token, messages, reply: REPLY });
        played += 1;
        if (!measuring && played >= warmup) {
          measuring = true;
          await window.start();
          startCpu = process.cpuUsage();
          startWall = performance.now();
          startCalls = calls;
          startStub = stubMs;
        } else if (measuring) measuredSteps += 1;
        messages.push({ role: "assistant", content: REPLY }, { role: "user", content: response.message });
        token = response.token;
        done = response.done;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  const cpu = process.cpuUsage(startCpu);
  const wallS = (performance.now() - startWall) / 1000;
  await window.end();
  await mock?.stop();
  const cpuUs = cpu.user + cpu.system - (stubMs - startStub) * 1000;
  const measuredCalls = calls - startCalls;
  return {
    transport,
    fused,
    concurrency,
    steps: measuredSteps,
    calls: measuredCalls,
    cpuUsPerStep: cpuUs / measuredSteps,
    cpuUsPerCall: cpuUs / measuredCalls,
    stubUsPerStep: ((stubMs - startStub) * 1000) / measuredSteps,
    wallS,
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function's code lives, short: our build's file, a package, or node's internals. */
function placeOf(url: string): string {
  if (url === "") return "(native / VM)";
  if (url.startsWith("node:")) return url;
  const modules = url.lastIndexOf("/node_modules/");
  if (modules !== -1) {
    const rest = url.slice(modules + "/node_modules/".length).split("/");
    return (rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]) ?? url;
  }
  const dist = url.lastIndexOf("/dist/");
  if (dist !== -1) return url.slice(dist + 1);
  const benchBuild = url.lastIndexOf("/.bench-build/");
  return benchBuild !== -1 ? `bench/${url.slice(benchBuild + "/.bench-build/".length)}` : url;
}

/** Self time per function and per place, in ms, from a .cpuprofile. */
function selfTimes(profile: CpuProfile): { functions: Map<string, number>; places: Map<string, number>; totalMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)" || functionName === "(program)" || functionName === "(garbage collector)") {
      if (functionName !== "(idle)") {
        functions.set(functionName, (functions.get(functionName) ?? 0) + ms);
        places.set(functionName, (places.get(functionName) ?? 0) + ms);
        totalMs += ms;
      }
      return;
    }
    const place = placeOf(url);
    const key = `${functionName || "(anonymous)"} ${place}${url === "" ? "" : `:${lineNumber + 1}`}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
    places.set(place, (places.get(place) ?? 0) + ms);
    totalMs += ms;
  });
  return { functions, places, totalMs };
}

/** The stub's own code (and the mock policy it runs): subtracted from the figure, listed apart in the profile. */
const STUB_PLACES = ["bench/llm-step-profile.js", "dist/testing/", "dist/lexicon/lexicon.js", "cpuUsage"];
const isStub = (name: string) => STUB_PLACES.some((place) => name.includes(place));

/**
 * The largest entries, each as µs of CPU per step: its share of the samples times the CPU the
 * window used per step. (Samples are spaced in wall time; on a shared machine a share is the
 * honest figure, a sum of sample intervals is not.)
 */
function topRows(times: Map<string, number>, totalMs: number, cpuUsPerStep: number, count: number): string[][] {
  let stubMs = 0;
  const ours = [...times.entries()].filter(([name, ms]) => (isStub(name) ? ((stubMs += ms), false) : true));
  return [
    ...ours
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, ms]) => [`\`${name}\``, fixed((ms / totalMs) * cpuUsPerStep, 1), fixed((ms / totalMs) * 100, 1)]),
    [
      "(the stub and the mock policy, subtracted from the figure)",
      fixed((stubMs / totalMs) * cpuUsPerStep, 1),
      fixed((stubMs / totalMs) * 100, 1),
    ],
  ];
}

/** The same measurement again, with V8's sampling profiler on over the measured window only. */
async function profiled(): Promise<{ result: Measured; functions: string[][]; places: string[][] }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  let profile: CpuProfile | undefined;
  const result = await measure({
    start: async () => {
      await session.post("Profiler.start");
    },
    end: async () => {
      profile = ((await session.post("Profiler.stop")) as unknown as { profile: CpuProfile }).profile;
    },
  });
  session.disconnect();
  if (profile === undefined) throw new Error("the profiler returned no profile");
  const { functions, places, totalMs } = selfTimes(profile);
  const allCpuUs = result.cpuUsPerStep + result.stubUsPerStep;
  return { result, functions: topRows(functions, totalMs, allCpuUs, top), places: topRows(places, totalMs, allCpuUs, top) };
}

/** `--read-profile FILE`: the self-time tables of a profile written elsewhere (bench:llm-server --profile-dir), as shares. */
function readProfile(path: string): void {
  const { functions, places, totalMs } = selfTimes(JSON.parse(readFileSync(path, "utf8")) as CpuProfile);
  const rows = (times: Map<string, number>) =>
    [...times.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => [`\`${name}\``, fixed(ms, 0), fixed((ms / totalMs) * 100, 1)]);
  process.stdout.write(`# ${path}: ${fixed(totalMs, 0)} ms of samples (idle excluded)\n\n`);
  process.stdout.write(`${markdownTable(["function", "ms", "% of samples"], rows(functions))}\n\n`);
  process.stdout.write(`${markdownTable(["where", "ms", "% of samples"], rows(places))}\n`);
}

const profilePath = flags.get("read-profile");
if (profilePath !== undefined) {
  readProfile(profilePath);
  process.exit(0);
}

const { print, out } = reportPrinter();
print(`# LLM-user step CPU, in process (${new Date().toISOString()})`);
print();
print(`machine: ${JSON.stringify(machine())}`);
print(
  `transport ${transport}, ${fused ? "fused (one call per turn)" : "two-stage"}, ${concurrency} episodes at once, ${steps} steps measured after ${warmup}`,
);
print();
const result = await measure();
print(
  markdownTable(
    [
      "transport",
      "steps",
      "model calls",
      "CPU µs per step",
      "CPU µs per model call",
      "stub µs per step (subtracted)",
      "steps/s (CPU-bound)",
    ],
    [
      [
        result.transport,
        result.steps,
        result.calls,
        fixed(result.cpuUsPerStep, 0),
        fixed(result.cpuUsPerCall, 0),
        fixed(result.stubUsPerStep, 0),
        fixed(result.steps / result.wallS, 0),
      ],
    ],
  ),
);
let profile: Awaited<ReturnType<typeof profiled>> | undefined;
if (cpuProfile) {
  profile = await profiled();
  print();
  print(
    `## Self time over the measured window of a second run under the V8 profiler (${fixed(profile.result.cpuUsPerStep, 0)} µs per step with the profiler on, the stub's ${fixed(profile.result.stubUsPerStep, 0)} besides)`,
  );
  print();
  print(markdownTable(["function", "µs per step", "% of samples"], profile.functions));
  print();
  print(markdownTable(["where", "µs per step", "% of samples"], profile.places));
}
print(`\nload average after: ${machine().loadAverage.join(" ")}`);
const jsonPath = flags.get("json");
if (jsonPath !== undefined) writeFileSync(jsonPath, `${JSON.stringify({ result, profile, markdown: out.join("\n") }, null, 2)}\n`);
