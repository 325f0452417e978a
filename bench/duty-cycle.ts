/**
 * `node bench/run.mjs duty-cycle`: how much more CPU the same work costs on this machine when it
 * runs in short bursts separated by waits (as a harness waiting on 300 ms model calls does) than
 * back to back.
 *
 * 1. Platform only: a fixed piece of work (JSON round trips of a prompt-sized object) done 3,000
 *    times by 64 workers, with no wait, then with 100 ms and 300 ms (mean) waits between pieces.
 * 2. The harness without any network: 240 dialogues of the LLM path (two conditions, think and
 *    no-think, x 60 scenarios x 2 repeats; LLM agent, two-stage LLM simulated user, LLM ECS and
 *    HID judges) at concurrency 64, whose model is an in-process stub answering with the mock
 *    server's AEB policy after a delay of 30, 100 or 300 ms (mean). CPU of the whole process per
 *    model call, the stub's own answers included.
 */
import { LlmAgent } from "../src/agents/llm-agent.js";
import { runEpisode } from "../src/episode/step.js";
import { LlmEcsJudge, LlmHidJudge } from "../src/judges/llm-judges.js";
import type { ChatModel, ChatRequest, ChatResponse, UsageTotals } from "../src/llm/chat-model.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { forEachConcurrent } from "../src/runner/concurrency.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { judgeDialogue, withNewJudgements } from "../src/runner/dialogue-judgements.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { planRun } from "../src/runner/run-plan.js";
import { LlmSimulatedUser } from "../src/simulated-user/llm-user.js";
import { fixed, machine, markdownTable } from "./common.js";

const prompt = {
  messages: Array.from({ length: 20 }, (_, index) => ({ role: "user", content: `${"lorem ipsum dolor sit amet ".repeat(10)}${index}` })),
};
function work(): number {
  let total = 0;
  for (let index = 0; index < 20; index += 1) total += (JSON.parse(JSON.stringify(prompt)) as typeof prompt).messages.length;
  return total;
}

async function measure(gapMs: number, pieces = 3000, workers = 64): Promise<{ microsPerPiece: number; wallS: number }> {
  let started = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (started < pieces) {
        started += 1;
        work();
        await (gapMs > 0 ? new Promise((resolve) => setTimeout(resolve, gapMs * (0.5 + Math.random()))) : Promise.resolve());
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { microsPerPiece: (used.user + used.system) / pieces, wallS: (performance.now() - t0) / 1000 };
}

/** A model that answers in-process, after a delay, as `aeb mock-llm --aeb` would. */
function stubModel(id: string, delayMs: number, counter: { calls: number }): ChatModel {
  return {
    id,
    role: id,
    usage: () => ({}) as UsageTotals,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      counter.calls += 1;
      const body = {
        model: id,
        messages: request.messages,
        ...(request.jsonSchema ? { response_format: { type: "json_schema", json_schema: { name: request.jsonSchema.name } } } : {}),
      };
      const reply = await aebMockReply({ n: counter.calls, model: id, messages: request.messages, stream: true, body });
      await new Promise((resolve) => setTimeout(resolve, delayMs * (0.5 + Math.random())));
      return {
        text: typeof reply === "string" ? reply : reply.content,
        usage: { promptTokens: 0, completionTokens: 0 },
        finishReason: "stop",
        cached: false,
        latencyMs: 0,
        endpoint: "stub",
      };
    },
  };
}

async function harness(delayMs: number): Promise<{ cpuMsPerCall: number; wallS: number; calls: number }> {
  const counter = { calls: 0 };
  const config = parseRunConfig(
    {
      scenarios: { suite: "full" },
      conditions: [
        { name: "think", agent: { kind: "reference", id: "attuned" } },
        { name: "direct", agent: { kind: "reference", id: "attuned" } },
      ],
    },
    "duty-cycle",
  );
  const tasks = planRun(config.conditions, selectScenarios(config), 2, 1);
  const agents: Record<string, LlmAgent> = {
    think: new LlmAgent(stubModel("agent", delayMs, counter), { think: true }),
    direct: new LlmAgent(stubModel("agent", delayMs, counter), { think: false }),
  };
  const user = new LlmSimulatedUser(stubModel("simulator", delayMs, counter), { fused: false, maxOutputRetries: 2 });
  const judges = {
    ecs: [{ name: "ecs", judge: new LlmEcsJudge(stubModel("judge", delayMs, counter)) }],
    hid: [{ name: "hid", judge: new LlmHidJudge(stubModel("judge", delayMs, counter)) }],
  };
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await forEachConcurrent(tasks, 64, async (task) => {
    const played = await runEpisode({
      dialogueId: task.id,
      condition: task.condition.name,
      scenario: task.scenario,
      preset: task.preset,
      repeat: task.repeat,
      seed: task.seed,
      agent: agents[task.condition.name] as LlmAgent,
      user,
    });
    JSON.stringify(withNewJudgements(played, await judgeDialogue(played, task.scenario, judges)));
  });
  const used = process.cpuUsage(cpu);
  return { cpuMsPerCall: (used.user + used.system) / 1000 / counter.calls, wallS: (performance.now() - t0) / 1000, calls: counter.calls };
}

for (let index = 0; index < 500; index += 1) work(); // warm up the JIT
const rows: string[][] = [];
for (const gap of [0, 100, 300, 0]) {
  const result = await measure(gap);
  rows.push([gap === 0 ? "none" : `${gap} ms`, fixed(result.wallS, 1), fixed(result.microsPerPiece, 0)]);
}
await harness(10); // warm up
const harnessRows: string[][] = [];
for (const delay of [30, 100, 300]) {
  const result = await harness(delay);
  harnessRows.push([`${delay} ms`, String(result.calls), fixed(result.wallS, 1), fixed(result.cpuMsPerCall, 3)]);
}
const info = machine();
process.stdout.write(`machine: ${info.nproc} CPUs (${info.cpu}), node ${info.node}, load average ${info.loadAverage.join(" ")}\n\n`);
process.stdout.write(
  `Platform only (JSON work, 64 workers):\n\n${markdownTable(["wait between pieces (mean)", "wall s", "CPU us per piece"], rows)}\n\n`,
);
process.stdout.write(
  `Harness with in-process stub models (no network), concurrency 64:\n\n${markdownTable(["model delay (mean)", "model calls", "wall s", "CPU ms per call"], harnessRows)}\n`,
);
