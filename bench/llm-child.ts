/**
 * One measured run of the full LLM path, in its own process (spawned by bench/llm.ts): agents under
 * test, the two-stage simulated user and the ECS and HID judges, all against a mock
 * OpenAI-compatible server running in ANOTHER process. Prints one JSON line with what it measured.
 *
 * - wall: around runBenchmark (plan, dialogues, judges, summary and report files).
 * - harness CPU: process.cpuUsage() of this process over the same span (the server is elsewhere).
 * - model time of a call: its client-observed latency (RunEvents.onModelCall), from the call to
 *   its parsed result, including every retry; a dialogue's chain is the sum over its calls, which
 *   are strictly sequential within a dialogue.
 * - server time of a call: what the mock server says it waited (its seeded latency draw, sent as
 *   `openai-processing-ms`), summed and chained the same way: the strict floor, which a slow
 *   harness cannot inflate (client-observed latency grows when the harness's loop is late).
 * - peak RSS: process.resourceUsage().maxRSS at the end (the process's lifetime high-water mark).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelCallEvent } from "../src/llm/chat-model.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { parseRunConfig, type RunConfigInput } from "../src/runner/run-config.js";

export interface ChildSpec {
  url: string;
  concurrency: number;
  /** Conditions to run (names of BENCH_CONDITIONS); all when absent. */
  conditions?: string[];
  /** Scenario ids of the `full` suite; all sixty when absent. */
  scenarioIds?: string[];
  seed: number;
  /** Ask for streamed (SSE) replies instead of one JSON body per reply (the default). */
  stream?: boolean;
}

export interface ChildResult {
  dialogues: number;
  errors: number;
  calls: number;
  failedCalls: number;
  requests: number;
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** CPU and wall time up to the last finished dialogue (loading, dialogues, judges), before summary.json and the reports. */
  dialoguesCpuMs: number;
  dialoguesWallMs: number;
  /** Sum of every call's client-observed latency. */
  modelMs: number;
  /** The longest dialogue's sum of call latencies, and its number of calls. */
  longestChainMs: number;
  longestChainCalls: number;
  /** Sum of every call's server-reported time, and the longest dialogue's sum of it. */
  serverModelMs: number;
  serverLongestChainMs: number;
  /** Answered calls whose server reported no time (0 against the mock). */
  callsWithoutServerTime: number;
  meanCallsPerDialogue: number;
  latency: { mean: number; p50: number; p90: number; p99: number; max: number };
  peakRssBytes: number;
  heapUsedBytes: number;
}

/** The eight conditions (think and no-think over four agent models), as in examples/paper-eight-conditions.yaml. */
export const BENCH_CONDITIONS = ["rlver-ppo", "rlver-grpo", "qwen2.5-7b", "qwen2.5-1.5b"].flatMap((model) => [
  { name: `${model}-think`, model, think: true },
  { name: `${model}-nothink`, model, think: false },
]);
export const BENCH_MODELS = [...new Set(BENCH_CONDITIONS.map((condition) => condition.model)), "simulator", "judge"];

export function benchConfig(spec: ChildSpec): RunConfigInput {
  // The per-endpoint cap (default 16) is raised above the concurrency so the client never queues.
  const endpoint = (model: string) => ({
    baseUrl: spec.url,
    model,
    maxConcurrencyPerEndpoint: 1024,
    stream: spec.stream ?? false,
    maxRetries: 2,
    retryBaseDelayMs: 50,
    timeoutMs: 120_000,
    idleTimeoutMs: 60_000,
  });
  const conditions = BENCH_CONDITIONS.filter((condition) => spec.conditions === undefined || spec.conditions.includes(condition.name));
  return {
    seed: spec.seed,
    concurrency: spec.concurrency,
    scenarios: { suite: "full", ...(spec.scenarioIds ? { ids: spec.scenarioIds } : {}) },
    simulator: { kind: "llm", fused: false, endpoint: endpoint("simulator") },
    judges: {
      ecs: [{ name: "ecs-llm", kind: "llm", endpoint: endpoint("judge") }],
      hid: [{ name: "hid-llm", kind: "llm", endpoint: endpoint("judge") }],
    },
    conditions: conditions.map((condition) => ({
      name: condition.name,
      agent: { kind: "llm", think: condition.think, endpoint: endpoint(condition.model) },
    })),
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as ChildSpec;
  const config = parseRunConfig(benchConfig(spec), "bench");
  const outDir = mkdtempSync(join(tmpdir(), "aeb-bench-"));
  const chains = new Map<string, { ms: number; calls: number; serverMs: number }>();
  const latencies: number[] = [];
  let failedCalls = 0;
  let serverModelMs = 0;
  let callsWithoutServerTime = 0;
  const onModelCall = (event: ModelCallEvent) => {
    const key = event.sampleKey ?? "";
    const hash = key.indexOf("#");
    const dialogue = hash === -1 ? key : key.slice(0, hash);
    const chain = chains.get(dialogue) ?? { ms: 0, calls: 0, serverMs: 0 };
    chain.ms += event.latencyMs;
    chain.calls += 1;
    if (event.serverMs !== undefined) {
      chain.serverMs += event.serverMs;
      serverModelMs += event.serverMs;
    } else if (event.ok) callsWithoutServerTime += 1;
    chains.set(dialogue, chain);
    latencies.push(event.latencyMs);
    if (!event.ok) failedCalls += 1;
  };

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  // CPU up to the last finished dialogue, apart from the summary and report files written after it.
  let toRun = 0;
  let finished = 0;
  let dialoguesCpu: NodeJS.CpuUsage | undefined;
  let dialoguesWallMs = 0;
  const onPlan = (plan: { toRun: number }) => {
    toRun = plan.toRun;
  };
  const onDialogue = () => {
    finished += 1;
    if (finished === toRun) {
      dialoguesCpu = process.cpuUsage(cpuBefore);
      dialoguesWallMs = performance.now() - started;
    }
  };
  const result = await runBenchmark({ config, outDir, events: { onModelCall, onPlan, onDialogue } });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);

  const usage = result.summary.usage ?? [];
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  const modelMs = latencies.reduce((sum, value) => sum + value, 0);
  let longest = { ms: 0, calls: 0 };
  let serverLongestChainMs = 0;
  for (const chain of chains.values()) {
    if (chain.ms > longest.ms) longest = chain;
    serverLongestChainMs = Math.max(serverLongestChainMs, chain.serverMs);
  }
  const output: ChildResult = {
    dialogues: result.summary.dialogues,
    errors: result.errors,
    calls: latencies.length,
    failedCalls,
    requests: usage.reduce((sum, entry) => sum + entry.requests, 0),
    wallMs,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    dialoguesCpuMs: dialoguesCpu === undefined ? cpu.user / 1000 + cpu.system / 1000 : (dialoguesCpu.user + dialoguesCpu.system) / 1000,
    dialoguesWallMs: dialoguesCpu === undefined ? wallMs : dialoguesWallMs,
    modelMs,
    longestChainMs: longest.ms,
    longestChainCalls: longest.calls,
    serverModelMs,
    serverLongestChainMs,
    callsWithoutServerTime,
    meanCallsPerDialogue: latencies.length / Math.max(1, chains.size),
    latency: { mean: modelMs / Math.max(1, latencies.length), p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN },
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    heapUsedBytes: process.memoryUsage().heapUsed,
  };
  rmSync(outDir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

if (process.argv[1]?.endsWith("llm-child.js")) await main();
