import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import type { ChildResult } from "../bench/llm-child.js";

const ROOT = join(import.meta.dirname, "..");
const servers: MockLlmServer[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((server) => server.close())));

describe("npm run bench: one measured child (bench/llm-child.ts) on a tiny job", () => {
  it("runs the full LLM path and reports calls, chains and CPU from the onModelCall hook", async () => {
    const server = await startMockLlmServer({ models: ["rlver-ppo", "simulator", "judge"], reply: aebMockReply, latency: 5 });
    servers.push(server);
    const spec = {
      url: server.url,
      concurrency: 2,
      seed: 1,
      conditions: ["rlver-ppo-think", "rlver-ppo-nothink"],
      scenarioIds: ["escalation-audit-blame"],
    };

    // bench/run.mjs transpiles bench/*.ts against dist/ (built by `npm test` before vitest runs).
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, "bench", "run.mjs"), "llm-child", JSON.stringify(spec)], {
      cwd: ROOT,
    });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;

    // 2 dialogues of 8 turns: agent + appraisal + reply + ECS per turn, and one HID call = 33 each.
    expect(result).toMatchObject({
      dialogues: 2,
      errors: 0,
      calls: 66,
      failedCalls: 0,
      requests: 66,
      longestChainCalls: 33,
      meanCallsPerDialogue: 33,
    });
    expect(server.chatRequests()).toHaveLength(66);
    expect(result.modelMs).toBeGreaterThanOrEqual(66 * 5);
    expect(result.longestChainMs).toBeGreaterThanOrEqual(33 * 5);
    expect(result.longestChainMs).toBeLessThanOrEqual(result.modelMs);
    expect(result.dialoguesCpuMs).toBeLessThanOrEqual(result.cpuUserMs + result.cpuSystemMs);
    expect(result.peakRssBytes).toBeGreaterThan(0);
  }, 60_000);
});
