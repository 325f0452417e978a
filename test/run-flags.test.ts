/**
 * `aeb run` without a config file: one model under test from flags, a dry run that sends nothing,
 * and trying a single dialogue with --scenario and --limit.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const servers: MockLlmServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});
async function mock(): Promise<MockLlmServer> {
  const server = await startMockLlmServer({ models: ["qwen2.5-7b", "sim", "judge"], reply: aebMockReply });
  servers.push(server);
  return server;
}

describe("aeb run from flags", () => {
  it("--agent-url and --agent-model run one model against the offline user, no config file needed", async () => {
    const server = await mock();
    const out = join(temporaryDirectory(), "run");
    const result = await runCli([
      "run",
      "--agent-url",
      server.url,
      "--agent-model",
      "qwen2.5-7b",
      "--think",
      "--suite",
      "starter",
      "--types",
      "escalation",
      "--out",
      out,
      "--no-progress",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const records = readDialogueRecords(out).records;
    expect(new Set(records.map((record) => record.condition))).toEqual(new Set(["qwen2.5-7b-think"]));
    expect(records.every((record) => record.turns.every((turn) => turn.agent.think !== undefined))).toBe(true);
    expect(server.chatRequests().length).toBeGreaterThan(0);
    // What the offline user reads, and how to be scored by an LLM user instead (issue 19, item 9).
    expect(result.stderr).toContain(
      "note: the offline simulated user scores this model's replies by the moves and phrases it finds in them (docs/offline-user.md)",
    );
    expect(result.stderr).toContain("simulator: { kind: llm, endpoint: {");
  });

  it("names what is missing when the one-liner is half given, and refuses it beside a config", async () => {
    expect((await runCli(["run", "--agent-url", "http://localhost:1/v1"])).stderr).toContain(
      "give both --agent-url URL and --agent-model NAME",
    );
    expect((await runCli(["run", "--think"])).stderr).toContain("--think goes with --agent-url and --agent-model");
    expect(
      (await runCli(["run", "--agent-url", "http://localhost:1/v1", "--agent-model", "m", "--config", "examples/single-local-model.yaml"]))
        .stderr,
    ).toContain("--agent-url runs one agent without a config file");
  });

  it("names the cause and the fix of an unset API-key variable and of a misspelt suite, never 'unexpected error'", async () => {
    const server = await mock();
    const unset = await runCli(
      [
        "run",
        "--agent-url",
        server.url,
        "--agent-model",
        "qwen2.5-7b",
        "--api-key-env",
        "AEB_TEST_UNSET_KEY",
        "--suite",
        "starter",
        "--out",
        join(temporaryDirectory(), "o"),
      ],
      { env: { AEB_TEST_UNSET_KEY: undefined } },
    );
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain(
      "environment variable AEB_TEST_UNSET_KEY (named by apiKeyEnv) is not set or empty: export AEB_TEST_UNSET_KEY=<your key> before running",
    );
    expect(unset.stderr).not.toContain("unexpected error");
    const suite = await runCli(["run", "--suite", "startr", "--out", join(temporaryDirectory(), "o")]);
    expect(suite.code).toBe(1);
    expect(suite.stderr).toContain('unknown suite "startr" (known: classic, full, starter)');
    const id = await runCli(["run", "--scenario", "escalation-cancelled-projet", "--out", join(temporaryDirectory(), "o")]);
    expect(id.stderr).toMatch(/unknown scenario id\(s\): escalation-cancelled-projet \(did you mean .*escalation-cancelled-project/);
  });

  it("--dry-run prints the plan with model calls and tokens per role, sends no request and writes nothing", async () => {
    const server = await mock();
    const dir = temporaryDirectory();
    const config = join(dir, "config.json");
    const endpoint = (model: string) => ({ baseUrl: server.url, model, maxTokens: 200 });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      config,
      JSON.stringify({
        repeats: 3,
        scenarios: { suite: "starter", types: ["escalation", "mood_reversal"] },
        simulator: { kind: "llm", endpoint: endpoint("sim") },
        conditions: [{ name: "model", agent: { kind: "llm", endpoint: endpoint("qwen2.5-7b") } }],
        judges: {
          ecs: [{ name: "judge", kind: "llm", endpoint: endpoint("judge") }],
          hid: [{ name: "hid", kind: "llm", endpoint: endpoint("judge") }],
        },
      }),
    );
    const out = join(dir, "out");
    const result = await runCli(["run", "--config", config, "--out", out, "--dry-run"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("plan: 12 dialogues (1 condition(s) x 4 scenario(s) x 3 repeat(s))");
    // 4 scenarios x 3 repeats x 8 turns: the agent's and the ECS judge's calls at most; the simulator's twice that.
    expect(result.stdout).toMatch(/agent:model +qwen2\.5-7b +[\d,]+ +96 +[\d,]+ +[\d,]+ +19,200/);
    expect(result.stdout).toMatch(/simulator +sim +[\d,]+ +192 /);
    expect(result.stdout).toMatch(/judge:judge +judge +[\d,]+ +96 /);
    expect(result.stdout).toMatch(/judge:hid +judge +[\d,]+ +12 /);
    expect(result.stdout).toContain("Nothing was sent and nothing was written.");
    expect(server.requests).toHaveLength(0);
    expect(existsSync(out)).toBe(false);
  });

  it("--scenario and --limit try one dialogue, and a later run does the rest", async () => {
    const out = join(temporaryDirectory(), "try");
    const one = await runCli(["run", "--scenario", "escalation-cancelled-project", "--limit", "1", "--out", out, "--no-progress"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain("--limit: running 1 of the 5 unfinished dialogue(s) now; run again without --limit for the rest");
    expect(readDialogueRecords(out).records.map((record) => record.id)).toEqual(["formulaic/escalation-cancelled-project/0"]);
    const rest = await runCli(["run", "--scenario", "escalation-cancelled-project", "--out", out, "--no-progress"]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(readDialogueRecords(out).records).toHaveLength(5);
    expect(readdirSync(out)).toContain("summary.json");
  });
});
