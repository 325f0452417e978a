/**
 * The AEB paper's eight conditions as the paper ran them (examples/paper-eight-conditions.yaml),
 * the project's recommended setup beside it, and SAGE's loop with the `sage` prompt pack: the
 * examples validate, the paper's runs end to end against the mock server (every role on its
 * prompts, the policy on the system prompt file it is given), and SAGE profiles run with the sage
 * pack. All in-process, against the mock OpenAI-compatible server.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../src/core/data-files.js";
import { DialogueRecordSchema, isAppraised, type DialogueRecord } from "../src/core/dialogue.js";
import { ConfigError } from "../src/core/errors.js";
import { startMockLlmServer, type MockChatRequest, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply, roleOf } from "../src/testing/aeb-mock-policy.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { loadRunConfig, parseRunConfig, type RunConfigInput } from "../src/runner/run-config.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const EXAMPLES = join(packageRoot, "examples");
const SAGE_PROFILES = join(packageRoot, "..", "shared", "data", "sage", "profiles", "simulator_profile_withfirsttalk.jsonl");

const servers: MockLlmServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

const readRecords = (dir: string): DialogueRecord[] =>
  readFileSync(join(dir, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)));

type Endpoint = { baseUrl?: string; baseUrls?: string[]; model: string };
/** Every endpoint of a raw config, wherever it sits. */
function endpointsOf(raw: RunConfigInput): Endpoint[] {
  const found: Endpoint[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "endpoint") found.push(inner as Endpoint);
        else visit(inner);
      }
    }
  };
  visit(raw);
  return found;
}

/** A raw example config pointed at the mock server: same model names, fast retries. */
function againstMock(raw: RunConfigInput, url: string): RunConfigInput {
  for (const endpoint of endpointsOf(raw)) {
    delete endpoint.baseUrls;
    Object.assign(endpoint, { baseUrl: url, maxRetries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 5, timeoutMs: 5000 });
  }
  delete raw.cache;
  return raw;
}

const requestsOf = (server: MockLlmServer) =>
  server.chatRequests().map((request) => {
    const body = request.body as Record<string, unknown>;
    const chat: MockChatRequest = {
      n: 0,
      model: String(body.model),
      messages: body.messages as MockChatRequest["messages"],
      stream: false,
      body,
    };
    return { body, chat, role: roleOf(chat) };
  });

describe("the example configs", () => {
  it("validate with the config parser, the paper's as the paper ran it", () => {
    for (const file of [
      "paper-eight-conditions.yaml",
      "recommended-eight-conditions.yaml",
      "mock-llm-demo.yaml",
      "single-local-model.yaml",
    ]) {
      expect(() => loadRunConfig(join(EXAMPLES, file)), file).not.toThrow();
    }
    const paper = loadRunConfig(join(EXAMPLES, "paper-eight-conditions.yaml"));
    expect(paper.simulator).toMatchObject({ kind: "llm", promptPack: "aeb-paper", endpoint: { model: "mistral-7b-instruct-v0.3" } });
    expect(paper.conditions).toHaveLength(8);
    for (const condition of paper.conditions) {
      expect(condition.agent).toMatchObject({ kind: "llm", maxTokens: 300, temperature: 0.7 });
      expect(condition.agent.kind === "llm" && condition.agent.systemPromptFile).toBe(
        condition.agent.kind === "llm" && condition.agent.think ? "rlver/agent-system-think.txt" : "rlver/agent-system-direct.txt",
      );
    }
    expect(
      paper.judges.ecs.map(
        (judge) =>
          judge.kind === "llm" && [judge.endpoint.model, judge.prompt, judge.unreadableTurn, judge.maxOutputRetries, judge.temperature],
      ),
    ).toEqual([
      ["mistral-7b-instruct-v0.3", "aeb-paper", "impute-50", 0, 0.7],
      ["gemma-3-4b-it", "aeb-paper", "impute-50", 0, 0.7],
    ]);
    expect(paper.scenarios.suite).toBe("classic");
    expect(paper.repeats).toBe(10);
    const recommended = loadRunConfig(join(EXAMPLES, "recommended-eight-conditions.yaml"));
    expect(recommended.simulator).toMatchObject({ promptPack: "aeb-json" });
    expect(recommended.scenarios.suite).toBe("full");
  });

  it("refuses a system prompt given twice, naming the field", () => {
    expect(() =>
      parseRunConfig(
        {
          conditions: [
            {
              name: "a",
              agent: { kind: "llm", systemPrompt: "x", systemPromptFile: "y.txt", endpoint: { baseUrl: "http://x/v1", model: "m" } },
            },
          ],
        },
        "inline",
      ),
    ).toThrow(/conditions\.\[0\]\.agent\.systemPromptFile: give systemPrompt or systemPromptFile, not both/);
  });
});

describe("the AEB paper's eight conditions against the mock server", () => {
  it("run end to end: Mistral on the aeb-paper pack, both ECS judges with the paper's anchors, the policies on RLVER's prompt with 300 tokens", async () => {
    const raw = parseYaml(readFileSync(join(EXAMPLES, "paper-eight-conditions.yaml"), "utf8")) as RunConfigInput;
    const models = [...new Set(endpointsOf(raw).map((endpoint) => endpoint.model))];
    const server = await startMockLlmServer({ models, reply: aebMockReply });
    servers.push(server);
    const root = temporaryDirectory();
    const think = "You are chatting with a friend.\nBefore each reply, think inside <think></think>, then reply.\n";
    const direct = "You are chatting with a friend. Reply warmly and casually.\n";
    writeFileSync(join(root, "think.txt"), think);
    writeFileSync(join(root, "direct.txt"), direct);
    const config = againstMock(raw, server.url);
    for (const condition of config.conditions ?? []) {
      if (condition.agent.kind === "llm") condition.agent.systemPromptFile = join(root, condition.agent.think ? "think.txt" : "direct.txt");
    }
    // One of the paper's six situations, once per condition: the whole path at a twelfth of the cost.
    config.scenarios = { suite: "classic", types: ["escalation"] };
    config.repeats = 1;
    const warnings: string[] = [];
    const out = join(root, "run");
    const result = await runBenchmark({
      config: parseRunConfig(config, "paper example"),
      outDir: out,
      events: { onWarning: (message) => warnings.push(message) },
    });
    expect(result.errors).toBe(0);
    const records = readRecords(out);
    expect(records).toHaveLength(8);
    // The warning agrees with docs/fidelity.md: the paper's ECS judge was the simulator's own model.
    expect(warnings).toEqual([
      "ECS judge \"mistral-7b\" is the simulator's model (mistral-7b-instruct-v0.3): it predicts emotions its own model reported, as the AEB paper's ECS judge did (docs/fidelity.md); add a judge of another family beside it (as examples/paper-eight-conditions.yaml does) for an independent ECS",
    ]);

    const requests = requestsOf(server);
    const byRole = (role: string) => requests.filter((request) => request.role === role);
    // The simulated user on the paper's free-text prompts: a system message and the prompt, no JSON schema, the pack's sampling.
    expect(byRole("tagged-analyst").length).toBeGreaterThan(0);
    for (const { body } of [...byRole("tagged-analyst"), ...byRole("tagged-actor")]) {
      expect(body.model).toBe("mistral-7b-instruct-v0.3");
      expect(body.response_format).toBeUndefined();
      expect(body.temperature).toBe(0.7);
      expect(body.max_tokens).toBe(400);
      expect((body.messages as Array<{ role: string }>).map((message) => message.role)).toEqual(["system", "user"]);
    }
    expect(byRole("appraisal")).toHaveLength(0);
    // Both ECS judges read the conversation with the paper's anchors and get one try each.
    const ecs = byRole("ecs");
    expect(new Set(ecs.map(({ body }) => body.model))).toEqual(new Set(["mistral-7b-instruct-v0.3", "gemma-3-4b-it"]));
    for (const { chat, body } of ecs) {
      expect(chat.messages[0]!.content).toContain("0 = devastated or hostile, 50 = neutral, 100 = very satisfied");
      expect([body.temperature, body.max_tokens]).toEqual([0.7, 400]);
    }
    // The policies: the system prompt file's text exactly, at most 300 new tokens.
    for (const { body, chat } of byRole("agent")) {
      expect(body.max_tokens).toBe(300);
      expect([think, direct]).toContain(chat.messages[0]!.content);
    }

    for (const record of records) {
      expect(record.turns.length).toBeGreaterThan(0);
      for (const turn of record.turns) {
        expect(turn.user.hid).toMatch(/^(yes|partial|no)$/);
        expect(turn.user.appraisal).toMatchObject({ pack: "aeb-paper", hidFrom: "TargetCompletion", TargetCompletion: expect.any(String) });
      }
      for (const judge of ["mistral-7b", "gemma-3-4b"])
        expect(record.ecs?.[judge]).toMatchObject({ unreadableTurn: "impute-50", imputed: 0, score: expect.any(Number) });
      if (record.condition.endsWith("-think")) expect(record.turns.every((turn) => turn.agent.think !== undefined)).toBe(true);
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
      conditions: Array<{ name: string; hid: { mean: number } | null }>;
    };
    expect(summary.conditions.map((condition) => condition.name)).toEqual(config.conditions!.map((condition) => condition.name));
    for (const condition of summary.conditions) expect(condition.hid?.mean).toEqual(expect.any(Number));
  });

  it("stops before any model call when a system prompt file is missing, naming the condition and the file", async () => {
    const server = await startMockLlmServer({ models: ["agent", "sim"], reply: aebMockReply });
    servers.push(server);
    const missing = join(temporaryDirectory(), "rlver", "agent-system-think.txt");
    const config = parseRunConfig(
      {
        scenarios: { suite: "classic", types: ["escalation"] },
        simulator: { kind: "llm", promptPack: "aeb-paper", endpoint: { baseUrl: server.url, model: "sim" } },
        conditions: [
          {
            name: "rlver-ppo-think",
            agent: { kind: "llm", think: true, systemPromptFile: missing, endpoint: { baseUrl: server.url, model: "agent" } },
          },
        ],
      },
      "inline",
    );
    const attempt = runBenchmark({ config, outDir: join(temporaryDirectory(), "run") });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(`condition "rlver-ppo-think": agent.systemPromptFile ${missing} cannot be read`);
    // ...and where RLVER's training prompt lives and the command that extracts it.
    await expect(attempt).rejects.toThrow(
      /system_prompt_trained in verl\/workers\/rollout\/vllm_rollout\/system_prompt\.py[\s\S]*aeb prompts extract --from rlver ~\/src\/rlver --out rlver/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("aeb run --dry-run on the paper's config works on a fresh clone: it says which files a real run needs and how to get them, and the simulator's cap", async () => {
    const fresh = temporaryDirectory();
    const result = await runCli(["run", "--config", join(packageRoot, "examples", "paper-eight-conditions.yaml"), "--dry-run"], {
      cwd: fresh,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/plan: 480 dialogues \(8 condition\(s\) x 6 scenario\(s\) x 10 repeat\(s\)\)/);
    expect(result.stdout).toContain("a real run needs these files, which cannot be read now");
    expect(result.stdout).toMatch(
      /rlver\/agent-system-think\.txt \(ENOENT[^)]*\), for qwen2\.5-1\.5b-think, qwen2\.5-7b-think, rlver-ppo-think, rlver-grpo-think/,
    );
    expect(result.stdout).toContain("aeb prompts extract --from rlver ~/src/rlver --out rlver");
    // The aeb-paper pack caps the simulator at 400 tokens: the dry run says so instead of "no cap set".
    const simulator = result.stdout.split("\n").find((line) => line.startsWith("simulator "))!;
    expect(simulator).not.toContain("no cap set");
    expect(existsSync(join(fresh, "runs"))).toBe(false);
  });

  it("stops before any model call when a pack of one's own uses an unknown placeholder, naming the file", async () => {
    const server = await startMockLlmServer({ models: ["agent", "sim"], reply: aebMockReply });
    servers.push(server);
    const dir = temporaryDirectory();
    cpSync(join(packageRoot, "prompts", "packs", "sage"), dir, { recursive: true });
    writeFileSync(join(dir, "en", "analyst.md"), "{{character}} feels {{mood}}.\nChange:\n");
    const config = parseRunConfig(
      {
        scenarios: { suite: "classic", types: ["escalation"] },
        simulator: { kind: "llm", promptPack: { dir }, endpoint: { baseUrl: server.url, model: "sim" } },
        conditions: [{ name: "a", agent: { kind: "llm", endpoint: { baseUrl: server.url, model: "agent" } } }],
      },
      "inline",
    );
    await expect(runBenchmark({ config, outDir: join(temporaryDirectory(), "run") })).rejects.toThrow(
      `${join(dir, "en", "analyst.md")} uses an unknown placeholder {{mood}}`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("stops before any model call when the pack cannot play a scenario (aeb-paper has no trait for SAGE's cooperative users)", async () => {
    const server = await startMockLlmServer({ models: ["agent", "sim"], reply: aebMockReply });
    servers.push(server);
    const scenarios = join(temporaryDirectory(), "profile.jsonl");
    writeFileSync(
      scenarios,
      `${JSON.stringify({ id: "p1", player: "* 姓名：小林", scene: "他失业了。", task: "你希望对方用心倾听你的情绪宣泄", first_talk: "唉。" })}\n`,
    );
    const config = parseRunConfig(
      {
        scenarios: { path: `sage:${scenarios}` },
        simulator: { kind: "llm", promptPack: "aeb-paper", endpoint: { baseUrl: server.url, model: "sim" } },
        conditions: [{ name: "a", agent: { kind: "llm", endpoint: { baseUrl: server.url, model: "agent" } } }],
      },
      "inline",
    );
    await expect(runBenchmark({ config, outDir: join(temporaryDirectory(), "run") })).rejects.toThrow(
      /no trait text for type "cooperative" .*\(scenario sage-p1\)/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe.skipIf(!existsSync(SAGE_PROFILES))(
  `SAGE's profiles with the sage pack and preset against the mock${existsSync(SAGE_PROFILES) ? "" : " [skipped: ../shared/data/sage is absent]"}`,
  () => {
    it("plays SAGE's two stages in Chinese on free-text sections and records the appraised replies", async () => {
      const server = await startMockLlmServer({ models: ["agent", "sim"], reply: aebMockReply });
      servers.push(server);
      const ids = ["sage-d3c386e4-1b4d-4568-8abf-4d60a4fec355"];
      const second = JSON.parse(readFileSync(SAGE_PROFILES, "utf8").split("\n")[1] as string) as { id: string };
      ids.push(
        `sage-${second.id
          .toLowerCase()
          .replace(/[^a-z0-9]+/gu, "-")
          .replace(/^-+|-+$/gu, "")}`,
      );
      const config = parseRunConfig(
        {
          scenarios: { path: `sage:${SAGE_PROFILES}`, ids },
          simulator: {
            kind: "llm",
            promptPack: "sage",
            endpoint: { baseUrl: server.url, model: "sim", maxRetries: 1, retryBaseDelayMs: 1 },
          },
          judges: { ecs: [], hid: [] },
          conditions: [{ name: "agent", agent: { kind: "llm", endpoint: { baseUrl: server.url, model: "agent" } } }],
        },
        "sage pack",
      );
      const out = join(temporaryDirectory(), "run");
      const result = await runBenchmark({ config, outDir: out });
      expect(result.errors).toBe(0);
      const records = readRecords(out);
      expect(records.map((record) => record.scenarioId).sort()).toEqual([...ids].sort());
      for (const record of records) {
        expect(record.preset).toBe("sage");
        expect(record.opening.emotion).toBe(40);
        // SAGE appraises at most 9 replies: a 10th is recorded unappraised (no user reply, no change).
        expect(record.turns.length).toBeLessThanOrEqual(10);
        expect(record.turns.filter((turn) => isAppraised(turn)).length).toBeLessThanOrEqual(9);
        for (const turn of record.turns) {
          if (!isAppraised(turn)) {
            expect(turn.index).toBe(9);
            continue;
          }
          expect(turn.user.hid).toBeUndefined();
          expect(turn.user.appraisal).toMatchObject({
            pack: "sage",
            Content: expect.any(String),
            TargetCompletion: expect.any(String),
            change: turn.user.simulatorDelta,
          });
        }
      }
      const simulator = requestsOf(server).filter((request) => request.body.model === "sim");
      expect(new Set(simulator.map((request) => request.role))).toEqual(new Set(["tagged-analyst", "tagged-actor"]));
      for (const { chat } of simulator) {
        expect(chat.messages[0]!.role).toBe("user");
        expect(chat.messages[0]!.content).toMatch(/人物画像/);
        expect(chat.messages[0]!.content).not.toMatch(/第 \d+ 轮/);
      }
    });
  },
);
