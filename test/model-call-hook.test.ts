/**
 * The run's model-call instrumentation hook (RunEvents.onModelCall), which `npm run bench` uses to
 * find each dialogue's chain of sequential model calls: one event per call, keyed to its dialogue.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { ModelCallEvent } from "../src/llm/chat-model.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { temporaryDirectory } from "./helpers/cli.js";

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("reports every model call of a run once, with a sampleKey that starts with its dialogue id", async () => {
  server = await startMockLlmServer({ models: ["sim", "agent", "judge"], reply: aebMockReply });
  const endpoint = (model: string) => ({ baseUrl: server!.url, model, maxRetries: 0 });
  const config = parseRunConfig(
    {
      seed: 2,
      concurrency: 4,
      scenarios: { suite: "starter", types: ["escalation"] },
      simulator: { kind: "llm", endpoint: endpoint("sim") },
      judges: {
        ecs: [{ name: "ecs", kind: "llm", endpoint: endpoint("judge") }],
        hid: [{ name: "hid", kind: "llm", endpoint: endpoint("judge") }],
      },
      conditions: [
        { name: "think", agent: { kind: "llm", think: true, endpoint: endpoint("agent") } },
        { name: "direct", agent: { kind: "llm", think: false, endpoint: endpoint("agent") } },
      ],
    },
    "test",
  );
  const out = join(temporaryDirectory(), "run");
  const events: ModelCallEvent[] = [];
  const result = await runBenchmark({ config, outDir: out, events: { onModelCall: (event) => events.push(event) } });
  const calls = result.summary.usage!.reduce((sum, entry) => sum + entry.calls + entry.cachedCalls + entry.failedCalls, 0);
  expect(events).toHaveLength(calls);
  expect(events.every((event) => event.ok && !event.cached && event.latencyMs >= 0)).toBe(true);
  const ids = readFileSync(join(out, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id);
  expect(new Set(events.map((event) => event.sampleKey!.split("#")[0]))).toEqual(new Set(ids));
  expect(new Set(events.map((event) => event.role))).toEqual(
    new Set(["agent:think", "agent:direct", "simulator", "judge:ecs", "judge:hid"]),
  );
});
