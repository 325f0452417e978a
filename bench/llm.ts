/**
 * `npm run bench`: the full LLM path (eight agent conditions, the two-stage simulated user, the
 * ECS and HID judges) over the sixty scenarios of the `full` suite against `aeb mock-llm --aeb` in
 * its own process, with a log-normal latency (median 300 ms, sigma 0.6: a long tail).
 *
 * Configurations (each measured run is a fresh child process and a fresh, identically seeded
 * mock server; medians over --repeats runs are reported):
 *   c64       the whole job at concurrency 64
 *   c1        concurrency 1, as SAGE's loop runs, on a subset (the whole job would take hours);
 *             the sequential time of the whole job is extrapolated from it (see BENCHMARKS.md)
 *   fixed100  the whole job at concurrency 64 against a fixed 100 ms latency: requests per second
 *             and harness CPU per request
 *   stream    c64 with streamed (SSE) replies (`stream: true` endpoints) instead of JSON bodies
 *
 * Efficiency is the ideal wall time over the measured one, with two ideals: from the latency the
 * client observed (which a busy harness inflates, flattering itself), and the strict one from the
 * mock server's own latency draws (`openai-processing-ms`): max(the longest dialogue's chain of
 * server time, all server time / concurrency). Targets are judged on the strict one.
 *
 * Flags: --configs c64,c1,fixed100  --repeats 3  --c1-repeats 1  --median-ms 300  --sigma 0.6
 *        --fixed-ms 100  --concurrency 64  --scenarios N (the first N scenarios of the suite, by id,
 *        for the c64, stream and fixed100 configurations: a small job)  --json FILE (raw results)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { fixed, machine, markdownTable, median, parseArgs, reportPrinter, ROOT, runChild, startMockServer } from "./common.js";
import { BENCH_CONDITIONS, BENCH_MODELS, type ChildResult, type ChildSpec } from "./llm-child.js";

const flags = parseArgs(process.argv.slice(2));
const configs = (flags.get("configs") ?? "c64,c1,fixed100").split(",");
const repeats = Number(flags.get("repeats") ?? 3);
const c1Repeats = Number(flags.get("c1-repeats") ?? 1);
const medianMs = Number(flags.get("median-ms") ?? 300);
const sigma = Number(flags.get("sigma") ?? 0.6);
const fixedMs = Number(flags.get("fixed-ms") ?? 100);
const concurrency = Number(flags.get("concurrency") ?? 64);
const scenarioLimit = flags.has("scenarios") ? Number(flags.get("scenarios")) : undefined;
if (scenarioLimit !== undefined && !(Number.isInteger(scenarioLimit) && scenarioLimit > 0))
  throw new Error(`--scenarios must be a positive integer, got ${flags.get("scenarios")}`);
const seed = 1;

/** The first `limit` scenarios of the `full` suite by id, or all of them (undefined). */
function firstScenarios(limit: number | undefined): { scenarioIds?: string[] } {
  if (limit === undefined) return {};
  const full = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "full" });
  return {
    scenarioIds: full
      .map((scenario) => scenario.id)
      .sort()
      .slice(0, limit),
  };
}

/** The concurrency-1 subset: the first scenario of each of the six types, under two conditions (think and no-think). */
function c1Subset(): { scenarioIds: string[]; conditions: string[] } {
  const full = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "full" });
  const firstOfType = new Map<string, string>();
  for (const scenario of [...full].sort((a, b) => a.id.localeCompare(b.id)))
    if (!firstOfType.has(scenario.type)) firstOfType.set(scenario.type, scenario.id);
  return { scenarioIds: [...firstOfType.values()], conditions: BENCH_CONDITIONS.slice(0, 2).map((condition) => condition.name) };
}

interface Measured extends ChildResult {
  concurrency: number;
  idealMs: number;
  efficiency: number;
  /** The ideal from the server's own latency, and the efficiency against it. */
  strictIdealMs: number;
  strictEfficiency: number;
  callsPerSecond: number;
  requestsPerSecond: number;
  cpuPerCallMs: number;
  cpuPerRequestMs: number;
  /** Harness CPU per call up to the last finished dialogue (summary.json and reports left out). */
  dialoguesCpuPerCallMs: number;
  serverCpuSeconds: number | null;
}

async function measure(latencyArgs: string[], spec: Omit<ChildSpec, "url">): Promise<Measured> {
  const server = await startMockServer([...latencyArgs, "--seed", String(seed), "--model", ...BENCH_MODELS]);
  try {
    const cpuBefore = server.cpuSeconds();
    const result = await runChild<ChildResult>("llm-child.js", [JSON.stringify({ ...spec, url: server.url })]);
    const cpuAfter = server.cpuSeconds();
    const idealMs = Math.max(result.longestChainMs, result.modelMs / spec.concurrency);
    const strictIdealMs = Math.max(result.serverLongestChainMs, result.serverModelMs / spec.concurrency);
    const cpuMs = result.cpuUserMs + result.cpuSystemMs;
    return {
      ...result,
      concurrency: spec.concurrency,
      idealMs,
      efficiency: idealMs / result.wallMs,
      strictIdealMs,
      strictEfficiency: strictIdealMs / result.wallMs,
      callsPerSecond: result.calls / (result.wallMs / 1000),
      requestsPerSecond: result.requests / (result.wallMs / 1000),
      cpuPerCallMs: cpuMs / result.calls,
      cpuPerRequestMs: cpuMs / result.requests,
      dialoguesCpuPerCallMs: result.dialoguesCpuMs / result.calls,
      serverCpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    };
  } finally {
    await server.stop();
  }
}

const s = (ms: number) => fixed(ms / 1000, 1);
const mb = (bytes: number) => fixed(bytes / 2 ** 20, 0);

function runTable(runs: readonly Measured[]): string {
  const row = (
    label: string,
    m: Pick<
      Measured,
      | "dialogues"
      | "calls"
      | "wallMs"
      | "idealMs"
      | "longestChainMs"
      | "modelMs"
      | "concurrency"
      | "efficiency"
      | "strictIdealMs"
      | "strictEfficiency"
      | "callsPerSecond"
      | "cpuPerCallMs"
      | "peakRssBytes"
      | "errors"
    > & { serverCpuSeconds: number | null },
  ) => [
    label,
    m.dialogues,
    m.errors,
    m.calls,
    s(m.wallMs),
    s(m.idealMs),
    s(m.longestChainMs),
    s(m.modelMs / m.concurrency),
    fixed(m.efficiency, 3),
    s(m.strictIdealMs),
    fixed(m.strictEfficiency, 3),
    fixed(m.callsPerSecond, 1),
    fixed(m.cpuPerCallMs, 3),
    mb(m.peakRssBytes),
    m.serverCpuSeconds === null ? "n/a" : fixed(m.serverCpuSeconds, 1),
  ];
  const rows = runs.map((run, index) => row(`run ${index + 1}`, run));
  if (runs.length > 1) {
    const pick = (key: keyof Measured) => median(runs.map((run) => run[key] as number));
    rows.push(
      row("**median**", {
        dialogues: pick("dialogues"),
        errors: pick("errors"),
        calls: pick("calls"),
        wallMs: pick("wallMs"),
        idealMs: pick("idealMs"),
        longestChainMs: pick("longestChainMs"),
        modelMs: pick("modelMs"),
        concurrency: pick("concurrency"),
        efficiency: pick("efficiency"),
        strictIdealMs: pick("strictIdealMs"),
        strictEfficiency: pick("strictEfficiency"),
        callsPerSecond: pick("callsPerSecond"),
        cpuPerCallMs: pick("cpuPerCallMs"),
        peakRssBytes: pick("peakRssBytes"),
        serverCpuSeconds: runs.every((run) => run.serverCpuSeconds !== null)
          ? median(runs.map((run) => run.serverCpuSeconds as number))
          : null,
      }).map((cell, index) => (index === 0 ? cell : `**${cell}**`)),
    );
  }
  return markdownTable(
    [
      "",
      "dialogues",
      "errors",
      "model calls",
      "wall s",
      "ideal s (client latency)",
      "longest chain s",
      "model time / concurrency s",
      "efficiency (client)",
      "strict ideal s (server latency)",
      "**strict efficiency**",
      "calls/s",
      "harness CPU ms/call",
      "peak RSS MB",
      "server CPU s",
    ],
    rows,
  );
}

function cpuSplitLine(runs: readonly Measured[]): string {
  const total = median(runs.map((run) => run.cpuPerCallMs));
  const dialogues = median(runs.map((run) => run.dialoguesCpuPerCallMs));
  const endSeconds = median(runs.map((run) => (run.cpuUserMs + run.cpuSystemMs - run.dialoguesCpuMs) / 1000));
  const endWall = median(runs.map((run) => (run.wallMs - run.dialoguesWallMs) / 1000));
  return `harness CPU per call (median): ${fixed(total, 3)} ms in all; ${fixed(dialogues, 3)} ms up to the last finished dialogue, and ${fixed(endSeconds, 1)} s of CPU (${fixed(endWall, 1)} s of wall) for summary.json and the reports after it`;
}

function latencyLine(runs: readonly Measured[]): string {
  const pick = (key: "mean" | "p50" | "p90" | "p99" | "max") => fixed(median(runs.map((run) => run.latency[key])), 0);
  const serverMean = median(runs.map((run) => run.serverModelMs / Math.max(1, run.calls)));
  const unreported = median(runs.map((run) => run.callsWithoutServerTime));
  return (
    `client-observed latency per call (median over runs): mean ${pick("mean")} ms, p50 ${pick("p50")}, p90 ${pick("p90")}, p99 ${pick("p99")}, max ${pick("max")} ms; ` +
    `the server's own mean ${fixed(serverMean, 0)} ms${unreported > 0 ? ` (${unreported} answered calls reported no server time)` : ""}; ` +
    `${fixed(median(runs.map((run) => run.meanCallsPerDialogue)), 1)} calls per dialogue, longest chain ${median(runs.map((run) => run.longestChainCalls))} calls`
  );
}

const LOG_NORMAL = ["--latency-median-ms", String(medianMs), "--latency-sigma", String(sigma)];

/** `times` measured runs of one configuration, with a progress line each on stderr. */
async function measureRuns(label: string, times: number, latencyArgs: string[], spec: Omit<ChildSpec, "url">): Promise<Measured[]> {
  const runs: Measured[] = [];
  for (let run = 0; run < times; run += 1) {
    process.stderr.write(`${label} run ${run + 1}/${times}...\n`);
    runs.push(await measure(latencyArgs, spec));
  }
  return runs;
}

async function main(): Promise<void> {
  const info = machine();
  const { out, print } = reportPrinter();
  const raw: Record<string, unknown> = { machine: info, flags: Object.fromEntries(flags), date: new Date().toISOString() };
  print(`# AEB LLM-path benchmark`);
  print();
  print(
    `machine: ${info.nproc} CPUs (${info.cpu}), ${info.memoryGiB} GiB, node ${info.node}, ${info.os}, load average at start ${info.loadAverage.join(" ")}`,
  );
  print(`command: npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
  print(
    `job: ${BENCH_CONDITIONS.length} conditions (${BENCH_CONDITIONS.map((condition) => condition.name).join(", ")}) x ${scenarioLimit === undefined ? "60 scenarios" : `the first ${scenarioLimit} scenarios by id`} (suite full), LLM agent + two-stage LLM simulated user + LLM ECS judge + LLM HID judge, one mock endpoint in a separate process`,
  );
  print();

  const printRuns = (title: string, runs: readonly Measured[]) => {
    print(title);
    print();
    print(runTable(runs));
    print();
    print(latencyLine(runs));
    print();
    print(cpuSplitLine(runs));
    print();
  };

  let c64: Measured[] = [];
  if (configs.includes("c64")) {
    c64 = await measureRuns("c64", repeats, LOG_NORMAL, { concurrency, seed, ...firstScenarios(scenarioLimit) });
    raw.c64 = c64;
    printRuns(`## Concurrency ${concurrency}, log-normal latency (median ${medianMs} ms, sigma ${sigma})`, c64);
  }

  if (configs.includes("stream")) {
    const runs = await measureRuns("stream", repeats, LOG_NORMAL, { concurrency, seed, stream: true, ...firstScenarios(scenarioLimit) });
    raw.stream = runs;
    printRuns(`## Concurrency ${concurrency}, log-normal latency, streamed replies (stream: true, SSE events of 8 characters)`, runs);
  }

  if (configs.includes("c1")) {
    const subset = c1Subset();
    const c1 = await measureRuns("c1", c1Repeats, LOG_NORMAL, { concurrency: 1, seed, ...subset });
    raw.c1 = c1;
    print(
      `## Concurrency 1 (SAGE's sequential loop), same latency, subset: ${subset.conditions.join(", ")} x ${subset.scenarioIds.length} scenarios (one per type)`,
    );
    print();
    print(runTable(c1));
    print();
    const overhead = median(c1.map((run) => run.wallMs / run.modelMs));
    print(
      `At concurrency 1 the wall time is ${fixed(overhead, 3)}x the sum of the calls' latencies (harness and transport overhead of a sequential loop).`,
    );
    if (c64.length > 0) {
      const sequentialMs = overhead * median(c64.map((run) => run.modelMs));
      const parallelMs = median(c64.map((run) => run.wallMs));
      raw.speedUp = { sequentialMsExtrapolated: sequentialMs, parallelMs, speedUp: sequentialMs / parallelMs };
      print(
        `Extrapolated sequential time of the whole job: ${fixed(overhead, 3)} x ${s(median(c64.map((run) => run.modelMs)))} s of model time = ${fixed(sequentialMs / 3_600_000, 2)} h; ` +
          `concurrency ${concurrency} took ${s(parallelMs)} s: **speed-up ${fixed(sequentialMs / parallelMs, 1)}x** (extrapolated, not measured end to end).`,
      );
    }
    print();
  }

  if (configs.includes("fixed100")) {
    const runs = await measureRuns(`fixed${fixedMs}`, repeats, ["--latency-ms", String(fixedMs)], {
      concurrency,
      seed,
      ...firstScenarios(scenarioLimit),
    });
    raw.fixed100 = runs;
    print(`## Concurrency ${concurrency}, fixed ${fixedMs} ms latency`);
    print();
    print(runTable(runs));
    print();
    print(
      `requests per second (median): **${fixed(median(runs.map((run) => run.requestsPerSecond)), 1)}**; harness CPU per request (median): **${fixed(median(runs.map((run) => run.cpuPerRequestMs)), 3)} ms**; ` +
        latencyLine(runs),
    );
    print();
    print(cpuSplitLine(runs));
    print();
  }

  if (c64.length > 0) {
    const efficiency = median(c64.map((run) => run.efficiency));
    const strictEfficiency = median(c64.map((run) => run.strictEfficiency));
    const cpuPerCall = median(c64.map((run) => run.cpuPerCallMs));
    const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
    print(`## Targets (medians at concurrency ${concurrency}, log-normal latency)`);
    print();
    print(
      `- strict efficiency (ideal from the server's own latency) >= 0.9: ${fixed(strictEfficiency, 3)}, ${verdict(strictEfficiency >= 0.9)} (against client-observed latency: ${fixed(efficiency, 3)})`,
    );
    print(`- harness CPU per model call < 0.5 ms: ${fixed(cpuPerCall, 3)} ms, ${verdict(cpuPerCall < 0.5)}`);
    print();
  }

  const loadAtEnd = machine().loadAverage;
  raw.loadAverageAtEnd = loadAtEnd;
  print(`load average at end ${loadAtEnd.join(" ")}`);
  print();

  const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `llm-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  mkdirSync(join(jsonPath, ".."), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(raw, null, 2)}\n`);
  writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${out.join("\n")}\n`);
  process.stderr.write(`raw results: ${jsonPath}\n`);
}

await main();
