/**
 * The run directory as a record that cannot be corrupted: a guard that refuses to mix runs (naming
 * what changed) but lets transport settings change, a lock against a second writer, a directory
 * claimed only once the run works, usage counted from an append-only log that survives SIGKILL
 * exactly, failed judge calls retried, and a circuit breaker that rides out a model server restart.
 */
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, RunDirectoryError, RunStoppedError } from "../src/core/errors.js";
import { aebMockReply, roleOf } from "../src/testing/aeb-mock-policy.js";
import { readManifest } from "../src/record/manifest.js";
import { readUsageTotals } from "../src/record/usage-log.js";
import { judgeRun } from "../src/runner/judge-run.js";
import { parseRunConfig, type RunConfigInput } from "../src/runner/run-config.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { useMockLlm } from "./helpers/mock-llm.js";
import { runCli, spawnCli, temporaryDirectory } from "./helpers/cli.js";

const mock = useMockLlm();

const endpoint = (url: string, model: string, extra: Record<string, unknown> = {}) => ({
  baseUrl: url,
  model,
  maxRetries: 1,
  retryBaseDelayMs: 5,
  retryMaxDelayMs: 20,
  timeoutMs: 5000,
  ...extra,
});

/** One LLM agent against the LLM simulated user, on the two escalation starter scenarios. */
function llmConfig(url: string, extra: Partial<RunConfigInput> = {}, endpointExtra: Record<string, unknown> = {}): RunConfigInput {
  return {
    seed: 3,
    concurrency: 4,
    scenarios: { suite: "starter", types: ["escalation"] },
    simulator: { kind: "llm", endpoint: endpoint(url, "sim", endpointExtra) },
    conditions: [{ name: "model", agent: { kind: "llm", think: false, endpoint: endpoint(url, "agent", endpointExtra) } }],
    judges: { ecs: [], hid: [] },
    ...extra,
  };
}

const lineCount = (dir: string, file = "dialogues.jsonl") =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean).length : 0;
const until = async (condition: () => boolean, timeoutMs = 30_000) => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("the guard of a run directory", () => {
  it("refuses a rerun whose scenario file changed, naming the scenario, and resumes after a transport-only change", async () => {
    const root = temporaryDirectory();
    const scenarios = join(root, "scenarios");
    cpSync(join(import.meta.dirname, "..", "scenarios", "starter"), scenarios, { recursive: true });
    const out = join(root, "run");
    const config = (extra: Partial<RunConfigInput> = {}) =>
      parseRunConfig(
        {
          scenarios: { path: scenarios, types: ["escalation"] },
          conditions: [{ name: "attuned", agent: { kind: "reference", id: "attuned" } }],
          ...extra,
        },
        "test",
      );
    await runBenchmark({ config: config(), outDir: out });
    const file = join(scenarios, "escalation-cancelled-project.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replace("opening:", "# edited\nopening:")
        .replace(/opening: (["']?)/, "opening: $1Honestly, "),
    );
    await expect(runBenchmark({ config: config(), outDir: out })).rejects.toThrow(
      /different definition[\s\S]*scenario escalation-cancelled-project changed/,
    );
    // Concurrency decides nothing: the same run resumes (and has nothing left to do).
    const again = await runBenchmark({
      config: config({
        concurrency: 1,
        scenarios: { path: join(import.meta.dirname, "..", "scenarios", "starter"), types: ["escalation"] },
      }),
      outDir: out,
    });
    expect(again.ran).toBe(0);
  });

  it("refuses a rerun after a prompt file of the run changed, naming the file", async () => {
    const server = await mock();
    const root = temporaryDirectory();
    const pack = join(root, "pack");
    cpSync(join(import.meta.dirname, "..", "prompts", "packs", "aeb-json"), pack, { recursive: true });
    const out = join(root, "run");
    const base = llmConfig(server.url);
    const config = parseRunConfig(
      { ...base, simulator: { ...(base.simulator as object), promptPack: { dir: pack } } as RunConfigInput["simulator"] },
      "test",
    );
    await runBenchmark({ config, outDir: out });
    const appraisal = join(pack, "en", "appraisal.md");
    writeFileSync(appraisal, `${readFileSync(appraisal, "utf8")}\nBe brief.\n`);
    await expect(runBenchmark({ config, outDir: out })).rejects.toThrow(
      new RegExp(`different definition[\\s\\S]*file promptPack:${pack.replaceAll("/", "\\/")}\\/en\\/appraisal\\.md changed`),
    );
  });

  it("lets timeouts, retries, replicas and concurrency change between invocations, but not a model's sampling", async () => {
    const first = await mock();
    const second = await mock();
    const out = join(temporaryDirectory(), "run");
    await runBenchmark({ config: parseRunConfig(llmConfig(first.url), "test"), outDir: out });
    const transport = llmConfig(second.url, { concurrency: 1 }, { timeoutMs: 60_000, maxRetries: 6, retryBaseDelayMs: 100 });
    const resumed = await runBenchmark({ config: parseRunConfig(transport, "test"), outDir: out });
    expect(resumed.ran).toBe(0);
    const sampling = llmConfig(first.url, {}, { temperature: 0.3 });
    await expect(runBenchmark({ config: parseRunConfig(sampling, "test"), outDir: out })).rejects.toThrow(
      /config conditions\[0\]\.agent\.endpoint\.temperature: undefined -> 0\.3/,
    );
  });

  it("refuses a plan too large to be meant before building anything", async () => {
    const config = parseRunConfig({ repeats: 1_000_000_000 }, "test");
    await expect(runBenchmark({ config, outDir: join(temporaryDirectory(), "huge") })).rejects.toThrow(ConfigError);
    await expect(runBenchmark({ config, outDir: join(temporaryDirectory(), "huge") })).rejects.toThrow(
      /300,000,000,000 dialogues \(5 condition\(s\) x 60 scenario\(s\) x 1,000,000,000 repeat\(s\)\)/,
    );
  });

  it("records who ran it, with what and when (provenance), invocation by invocation", async () => {
    const out = join(temporaryDirectory(), "run");
    const config = parseRunConfig({ scenarios: { suite: "starter", types: ["escalation"] } }, "test");
    await runBenchmark({ config, outDir: out, command: "aeb run" });
    await runBenchmark({ config, outDir: out, command: "aeb run" });
    const manifest = readManifest(out);
    if (manifest.kind !== "current") throw new Error("no current run.json");
    expect(manifest.manifest.invocations).toHaveLength(2);
    for (const invocation of manifest.manifest.invocations) {
      expect(invocation).toMatchObject({ command: "aeb run", outcome: "finished", definingHash: manifest.manifest.definingHash });
      expect(Date.parse(invocation.endedAt!)).toBeGreaterThanOrEqual(Date.parse(invocation.startedAt));
      expect(invocation.provenance.node).toBe(process.version);
      expect(invocation.provenance.aebVersion).toMatch(/^\d+\.\d+\.\d+/);
    }
    // Run from a checkout: the commit is recorded.
    if (existsSync(join(import.meta.dirname, "..", ".git")))
      expect(manifest.manifest.invocations[0]!.provenance.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(manifest.manifest.defining.files as object)).toContain("data/presets.yaml");
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/\| made by \| AEB \d+\.\d+\.\d+/);
  });
});

describe("claiming a directory", () => {
  it("writes nothing when the preflight fails, so the corrected command needs no --force; a failed --force keeps the old run.json", async () => {
    const dead = await mock();
    const deadUrl = dead.url;
    await dead.close();
    const out = join(temporaryDirectory(), "run");
    await expect(runBenchmark({ config: parseRunConfig(llmConfig(deadUrl), "test"), outDir: out })).rejects.toThrow(/unreachable/);
    // Not even the directory it created is left behind.
    expect(existsSync(out)).toBe(false);
    const offline = parseRunConfig({ scenarios: { suite: "starter", types: ["escalation"] } }, "test");
    await runBenchmark({ config: offline, outDir: out });
    const before = readFileSync(join(out, "run.json"), "utf8");
    await expect(runBenchmark({ config: parseRunConfig(llmConfig(deadUrl), "test"), outDir: out, force: true })).rejects.toThrow(
      /unreachable/,
    );
    expect(readFileSync(join(out, "run.json"), "utf8")).toBe(before);
  });

  it("lets a run with another definition take over a directory whose run finished nothing", async () => {
    const out = join(temporaryDirectory(), "run");
    const server = await mock({ reply: (request) => (roleOf(request) === "reply" ? "{}" : aebMockReply(request)) });
    const broken = await runBenchmark({ config: parseRunConfig(llmConfig(server.url), "test"), outDir: out });
    expect(broken.errors).toBeGreaterThan(0);
    expect(broken.finished).toBe(0);
    const notes: string[] = [];
    const offline = await runBenchmark({
      config: parseRunConfig({ scenarios: { suite: "starter", types: ["escalation"] } }, "test"),
      outDir: out,
      events: { onNote: (note) => notes.push(note) },
    });
    expect(offline.errors).toBe(0);
    expect(notes.join("\n")).toMatch(/taking over .*: its earlier run finished no dialogue/);
  });

  it("refuses a second writer while the first holds the directory, and takes over the lock of a dead process", async () => {
    const out = join(temporaryDirectory(), "run");
    const config = parseRunConfig({ scenarios: { suite: "starter" }, repeats: 3 }, "test");
    const first = runBenchmark({ config, outDir: out });
    await expect(runBenchmark({ config, outDir: out })).rejects.toThrow(RunDirectoryError);
    await expect(runBenchmark({ config, outDir: out })).rejects.toThrow(/is in use: library \(pid \d+/);
    await first;
    expect(existsSync(join(out, ".aeb.lock"))).toBe(false);
    writeFileSync(
      join(out, ".aeb.lock"),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import("node:os")).hostname(), command: "aeb run", since: "then" }),
    );
    const resumed = await runBenchmark({ config, outDir: out });
    expect(resumed.ran).toBe(0);
  });

  it("refuses a second aeb run process on the same --out with a clear message", async () => {
    const out = join(temporaryDirectory(), "run");
    const child = spawnCli(["run", "--suite", "starter", "--repeats", "30", "--out", out, "--no-progress"]);
    await until(() => existsSync(join(out, ".aeb.lock")));
    const second = await runCli(["run", "--suite", "starter", "--repeats", "30", "--out", out, "--no-progress"]);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/is in use: aeb run \(pid \d+, since .*\) is writing into it/);
  }, 60_000);
});

describe("usage counted from the record", () => {
  it("equals the requests the server counted after SIGKILLs, and survives a torn usage.jsonl", async () => {
    const server = await mock({ latency: 20 });
    const dir = temporaryDirectory();
    const out = join(dir, "run");
    const configFile = join(dir, "config.json");
    writeFileSync(configFile, JSON.stringify(llmConfig(server.url, { repeats: 6 })));
    for (let kill = 1; kill <= 3; kill += 1) {
      const before = lineCount(out);
      const child = spawnCli(["run", "--config", configFile, "--out", out, "--no-progress"]);
      const exited = new Promise((resolve) => child.on("exit", resolve));
      await until(() => lineCount(out) >= before + 2, 60_000);
      // Park every answer: once the count stops moving, each request the client sent was counted here.
      server.hold();
      let seen = -1;
      while (seen !== server.chatRequests().length) {
        seen = server.chatRequests().length;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      child.kill("SIGKILL");
      await exited;
      server.release();
    }
    appendFileSync(join(out, "usage.jsonl"), '{"event":"request","role":"simul');
    const finished = await runBenchmark({ config: parseRunConfig(llmConfig(server.url, { repeats: 6 }), "test"), outDir: out });
    expect(finished.finished).toBe(finished.planned);
    const usage = readUsageTotals(out)!;
    expect(usage.reduce((sum, entry) => sum + entry.requests, 0)).toBe(server.chatRequests().length);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { usage: Array<{ requests: number }> };
    expect(summary.usage.reduce((sum, entry) => sum + entry.requests, 0)).toBe(server.chatRequests().length);
  }, 180_000);
});

describe("usage of a resumed run", () => {
  it("is written from its first request: a resume killed before its first answer keeps the requests it sent", async () => {
    const server = await mock({ latency: 20 });
    const dir = temporaryDirectory();
    const out = join(dir, "run");
    const configFile = join(dir, "config.json");
    writeFileSync(configFile, JSON.stringify(llmConfig(server.url, { repeats: 6 })));
    const first = spawnCli(["run", "--config", configFile, "--out", out, "--no-progress"]);
    const firstExited = new Promise((resolve) => first.on("exit", resolve));
    await until(() => lineCount(out) >= 2, 60_000);
    first.kill("SIGKILL");
    await firstExited;
    const requestLines = () =>
      readFileSync(join(out, "usage.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"request"')).length;
    const before = { sent: server.chatRequests().length, logged: requestLines() };
    // The endpoint is down (every answer parked): the resumed run sends requests and gets no answer.
    server.hold();
    const resumed = spawnCli(["run", "--config", configFile, "--out", out, "--no-progress"]);
    const resumedExited = new Promise((resolve) => resumed.on("exit", resolve));
    await until(() => server.chatRequests().length >= before.sent + 3, 60_000);
    let seen = -1;
    while (seen !== server.chatRequests().length) {
      seen = server.chatRequests().length;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    resumed.kill("SIGKILL");
    await resumedExited;
    server.release();
    const sent = server.chatRequests().length - before.sent;
    expect(sent).toBeGreaterThanOrEqual(3);
    expect(requestLines() - before.logged).toBe(sent);
  }, 120_000);

  it("refuses at start-up a usage.jsonl with a bad line in the middle, naming the line and the remedy, before running anything", async () => {
    const out = join(temporaryDirectory(), "run");
    const config = parseRunConfig({ scenarios: { suite: "starter", types: ["escalation"] } }, "test");
    await runBenchmark({ config, outDir: out, limit: 1 });
    writeFileSync(
      join(out, "usage.jsonl"),
      '{"event":"model","role":"agent","model":"m"}\nnot json\n{"event":"model","role":"agent","model":"m"}\n',
    );
    const dialogues = readFileSync(join(out, "dialogues.jsonl"), "utf8");
    await expect(runBenchmark({ config, outDir: out })).rejects.toThrow(
      /usage\.jsonl line 2 is not valid JSON[\s\S]*move it aside \(mv .*usage\.jsonl .*usage\.jsonl\.bad\) and run the command again/,
    );
    expect(readFileSync(join(out, "dialogues.jsonl"), "utf8")).toBe(dialogues);
    expect(existsSync(join(out, ".aeb.lock"))).toBe(false);
  });
});

describe("judge calls that failed", () => {
  it("are retried by a resumed run and by aeb judge, the failed turns only", async () => {
    let judgeBroken = true;
    const server = await mock({
      reply: (request) => (roleOf(request) === "ecs" && judgeBroken ? "not a judgement" : aebMockReply(request)),
    });
    const out = join(temporaryDirectory(), "run");
    const config = parseRunConfig(
      llmConfig(server.url, {
        judges: { ecs: [{ name: "judge", kind: "llm", endpoint: endpoint(server.url, "judge"), maxOutputRetries: 0 }], hid: [] },
      }),
      "test",
    );
    const first = await runBenchmark({ config, outDir: out });
    expect(first.summary.conditions[0]!.ecsByJudge.judge!.judgeErrors).toBeGreaterThan(0);
    const failedRun = await runCli(["report", out]);
    expect(failedRun.code).toBe(0);
    judgeBroken = false;
    const judgeCalls = () =>
      server.chatRequests().filter((request) => {
        const body = request.body as Record<string, unknown>;
        return (
          roleOf({ n: 0, model: "", messages: body.messages as Array<{ role: string; content: string }>, stream: false, body }) === "ecs"
        );
      }).length;
    const before = judgeCalls();
    const resumed = await runBenchmark({ config, outDir: out });
    expect(resumed.ran).toBe(0);
    expect(resumed.judgeRetries).toBe(first.summary.conditions[0]!.n);
    expect(resumed.summary.conditions[0]!.ecsByJudge.judge!.judgeErrors).toBe(0);
    expect(judgeCalls()).toBeGreaterThan(before);
    expect(lineCount(out, "judgements.jsonl")).toBe(resumed.judgeRetries);
    // Nothing is left to retry: aeb judge skips every dialogue.
    const judged = await judgeRun({ dir: out, config, concurrency: 2, rejudge: false });
    expect(judged).toMatchObject({ judged: 0, retried: 0, skipped: first.summary.conditions[0]!.n });
  });
});

describe("the circuit breaker", () => {
  const breaker = { circuitBreaker: { failures: 3, probeIntervalMs: 100, maxWaitMs: 30_000 } };

  it("rides out a model server killed and restarted mid-run: no dialogue is lost", async () => {
    const first = await mock();
    const port = Number(new URL(first.url).port);
    const out = join(temporaryDirectory(), "run");
    const warnings: string[] = [];
    let finished = 0;
    let restarted: Promise<void> | undefined;
    const run = runBenchmark({
      config: parseRunConfig(llmConfig(first.url, { repeats: 4 }, breaker), "test"),
      outDir: out,
      events: {
        onWarning: (message) => warnings.push(message),
        onDialogue: () => {
          finished += 1;
          if (finished === 2)
            restarted = (async () => {
              await first.close();
              await new Promise((resolve) => setTimeout(resolve, 1_000));
              await mock({ port });
            })();
        },
      },
    });
    const result = await run;
    await restarted;
    expect(result.errors).toBe(0);
    expect(result.finished).toBe(result.planned);
    expect(warnings.some((warning) => /keeps failing .*dialogues wait for it/.test(warning))).toBe(true);
    expect(warnings.some((warning) => /answers again after/.test(warning))).toBe(true);
  });

  it("stops the run cleanly after a longer outage, keeps what finished, and resumes later", async () => {
    const first = await mock();
    const port = Number(new URL(first.url).port);
    const out = join(temporaryDirectory(), "run");
    const config = parseRunConfig(
      llmConfig(first.url, { repeats: 4 }, { circuitBreaker: { failures: 3, probeIntervalMs: 100, maxWaitMs: 800 } }),
      "test",
    );
    let finished = 0;
    const stopped = runBenchmark({
      config,
      outDir: out,
      events: {
        onDialogue: () => {
          finished += 1;
          if (finished === 2) {
            void first.close();
          }
        },
      },
    });
    await expect(stopped).rejects.toThrow(RunStoppedError);
    await expect(stopped).rejects.toThrow(/still failing after .*the run stopped, and the dialogues that finished are kept/);
    const kept = lineCount(out);
    expect(kept).toBeGreaterThanOrEqual(2);
    const manifest = readManifest(out);
    if (manifest.kind !== "current") throw new Error("no current run.json");
    expect(manifest.manifest.invocations.at(-1)!.outcome).toBe("stopped");
    await mock({ port });
    const resumed = await runBenchmark({ config, outDir: out });
    expect(resumed.skipped).toBeGreaterThanOrEqual(2);
    expect(resumed.errors).toBe(0);
    expect(resumed.finished).toBe(resumed.planned);
  });
});
