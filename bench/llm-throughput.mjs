/* global process, console, performance */
// LLM-path throughput of the harness against the mock OpenAI-compatible server.
// The mock runs in its own process (`aeb mock-llm --aeb`), so the CPU measured here is the
// harness's alone: agents, two-stage simulated user, ECS and HID judges, detectors, recorder.
// Usage: npm run bench:llm  (env: BENCH_LATENCY_MS=100 BENCH_CONCURRENCY=64 BENCH_REPEATS=2)
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunConfig, runBenchmark } from "../dist/index.js";

const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 100);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64);
const repeats = Number(process.env.BENCH_REPEATS ?? 2);
const cli = join(import.meta.dirname, "..", "dist", "cli", "main.js");

const mock = spawn(process.execPath, [cli, "mock-llm", "--aeb", "--port", "0", "--latency-ms", String(latencyMs), "--model", "sim", "agent", "judge"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  mock.stdout.on("data", (chunk) => {
    const match = /listening at (\S+)/.exec(chunk.toString());
    if (match) resolve(match[1]);
  });
  mock.on("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
});

const endpoint = (model) => ({ baseUrl: url, model, maxConcurrencyPerEndpoint: concurrency * 4 });
const config = parseRunConfig(
  {
    seed: 1,
    repeats,
    concurrency,
    scenarios: { suite: "full" },
    simulator: { kind: "llm", endpoint: endpoint("sim") },
    judges: { ecs: [{ name: "judge", kind: "llm", endpoint: endpoint("judge") }], hid: [{ name: "hid", kind: "llm", endpoint: endpoint("judge") }] },
    conditions: [
      { name: "think", agent: { kind: "llm", think: true, endpoint: endpoint("agent") } },
      { name: "nothink", agent: { kind: "llm", think: false, endpoint: endpoint("agent") } },
    ],
  },
  "bench",
);

let calls = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await runBenchmark({ config, outDir: mkdtempSync(join(tmpdir(), "aeb-bench-llm-")) });
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
for (const entry of result.summary.usage ?? []) calls += entry.calls;
mock.kill("SIGTERM");

const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(`# LLM path against the mock server (${latencyMs} ms per call), concurrency ${concurrency}`);
console.log(`machine: ${cpus().length} CPU(s), Node ${process.version}`);
console.log(`dialogues: ${result.summary.dialogues} (${result.errors} errors), model calls: ${calls}`);
console.log(`wall: ${(wallMs / 1000).toFixed(2)} s, calls/s: ${((calls * 1000) / wallMs).toFixed(1)}`);
console.log(`harness CPU: ${(cpuMs / 1000).toFixed(2)} s in all, ${(cpuMs / calls).toFixed(3)} ms per call`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
