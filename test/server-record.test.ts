/**
 * `aeb serve --record DIR`: every finished episode becomes a line of DIR/dialogues.jsonl in the
 * run-record format, turn by turn what `aeb run` writes for the same scenario, seed and replies,
 * with the trainer's step and tags; episodes finished in the step pool's threads and through
 * sessions are recorded too, a retried last step only once; `aeb report DIR` reads the directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { DialogueRecordSchema, type DialogueRecord } from "../src/core/dialogue.js";
import { getPreset } from "../src/core/preset.js";
import { deriveSeed } from "../src/core/random.js";
import { runEpisode } from "../src/episode/step.js";
import { loadRunForReport } from "../src/report/report-input.js";
import { renderMarkdownReport } from "../src/report/markdown-report.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { Message, ResetResponse, StepResponse } from "../src/server/api-schemas.js";
import { buildServer, type EnvironmentServer } from "../src/server/app.js";
import { EpisodeRecorder } from "../src/server/episode-recorder.js";
import { temporaryDirectory } from "./helpers/cli.js";
import { SOURCE_STEP_WORKER } from "./helpers/source-worker.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
const SECRET = "test-secret-test-secret-test-secret";
const recorded: DialogueRecord[] = [];
let nonces = 0;
const serving: Promise<EnvironmentServer> = buildServer({
  scenarios,
  user: new OfflineSimulatedUser(),
  secret: SECRET,
  stepThreads: 1,
  stepWorker: SOURCE_STEP_WORKER,
  recording: { condition: "train", write: (record) => void recorded.push(record), drawNonce: () => `n${nonces++}` },
});

afterAll(async () => {
  await (await serving).close();
});

async function post<T>(app: FastifyInstance, url: string, body: unknown) {
  const response = await app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/json" },
    payload: JSON.stringify(body),
  });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json() as T;
}

/** Plays an episode with the attuned agent, each step alone or as a batch of one. */
async function play(app: FastifyInstance, reset: Record<string, unknown>, via: "step" | "batch", agentId = "attuned") {
  const started = await post<ResetResponse>(app, "/v1/reset", reset);
  const agent = createReferenceAgent(agentId);
  let messages: Message[] = started.messages;
  let token = started.token;
  let last: StepResponse | undefined;
  let body: unknown;
  while (last?.done !== true) {
    const { text } = await agent.reply({
      history: messages,
      language: started.scenario.language as "en" | "zh",
      turnIndex: (messages.length - 1) / 2,
      seed: started.episodeSeed,
      dialogueId: started.episodeId,
    });
    body = { token, messages, reply: text };
    last =
      via === "step"
        ? await post<StepResponse>(app, "/v1/step", body)
        : (await post<{ results: Array<{ result: StepResponse }> }>(app, "/v1/step/batch", { steps: [body] })).results[0]!.result;
    messages = [...messages, { role: "assistant", content: text }, { role: "user", content: last.message }];
    token = last.token;
  }
  return { started, lastStep: body };
}

/** What `aeb run` writes for the same dialogue, without what a recorded episode leaves out (appraisal details). */
async function asRun(scenarioId: string, seed: number, presetName = "rlver", agentId = "attuned") {
  const scenario = scenarios.find((item) => item.id === scenarioId)!;
  const record = await runEpisode({
    dialogueId: "x",
    condition: "x",
    scenario,
    preset: getPreset(presetName),
    repeat: 0,
    seed: deriveSeed(seed, scenario.id, 0),
    agent: createReferenceAgent(agentId),
    user: new OfflineSimulatedUser(),
  });
  return { ...record, turns: record.turns.map(({ user: { appraisal: _appraisal, ...user }, ...turn }) => ({ ...turn, user })) };
}

describe("recorded episodes", () => {
  it("are aeb run's dialogue records, turn by turn, with the trainer's step and tags; from single steps and from the pool's threads", async () => {
    const { app } = await serving;
    recorded.length = 0;
    await play(app, { scenarioId: scenarios[0]!.id, seed: 3, trainerStep: 12, tags: { run: "grpo" } }, "step");
    await play(app, { scenarioId: scenarios[1]!.id, seed: 4, episodeId: "prompt-7", tags: { condition: "validation" } }, "batch");
    expect(recorded).toHaveLength(2);
    for (const record of recorded) DialogueRecordSchema.parse(record);
    const [first, second] = recorded as [DialogueRecord & { training: unknown }, DialogueRecord & { training: unknown }];
    const { id: _a, condition: _b, ...expectedFirst } = await asRun(scenarios[0]!.id, 3);
    expect(first).toEqual({
      ...expectedFirst,
      id: `train/env/${scenarios[0]!.id}/3/0/n0`,
      condition: "train",
      training: { episodeId: `env/${scenarios[0]!.id}/3/0`, runSeed: 3, rewardMode: "final", trainerStep: 12, tags: { run: "grpo" } },
    });
    const { id: _c, condition: _d, ...expectedSecond } = await asRun(scenarios[1]!.id, 4);
    expect(second).toEqual({
      ...expectedSecond,
      id: "validation/prompt-7/n1",
      condition: "validation",
      training: { episodeId: "prompt-7", runSeed: 4, rewardMode: "final", tags: { condition: "validation" } },
    });
    const metrics = (await app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toMatch(/aeb_env_episodes_recorded_total \d+/);
  });

  it("keep sage's unappraised last reply as aeb run records it (no user text, no change)", async () => {
    const { app } = await serving;
    // The first starter scenario and reference agent whose sage dialogue runs to its 10th reply
    // (neither success nor a collapse before it).
    let found: { id: string; agent: string; expected: Awaited<ReturnType<typeof asRun>> } | undefined;
    search: for (const agent of ["advice", "labeler", "formulaic", "sycophant", "attuned"] as const) {
      for (const scenario of scenarios) {
        const expected = await asRun(scenario.id, 5, "sage", agent);
        if (expected.turns.at(-1)?.user.appraised === false) {
          found = { id: scenario.id, agent, expected };
          break search;
        }
      }
    }
    expect(found, "no starter scenario reaches sage's unappraised 10th reply with any reference agent").toBeDefined();
    recorded.length = 0;
    await play(app, { scenarioId: found!.id, seed: 5, preset: "sage" }, "step", found!.agent);
    expect(recorded).toHaveLength(1);
    const record = DialogueRecordSchema.parse(recorded[0]);
    const { id: _id, condition: _condition, ...expected } = found!.expected;
    const {
      id: _recordedId,
      condition: _recordedCondition,
      training: _training,
      ...actual
    } = record as DialogueRecord & { training: unknown };
    expect(actual).toEqual(expected);
    expect(record.turns).toHaveLength(10);
    expect(record.turns.at(-1)!.user).toEqual({ appraised: false, emotion: record.turns.at(-2)!.user.emotion, adjustments: [], flags: [] });
  });

  it("are recorded once per session, a retried last step included", async () => {
    const { app } = await serving;
    recorded.length = 0;
    const created = await post<{ sessionId: string; messages: Message[] }>(app, "/v1/sessions", { scenarioId: scenarios[2]!.id, seed: 1 });
    const agent = createReferenceAgent("attuned");
    let messages = created.messages;
    let answer: StepResponse | undefined;
    let body: Record<string, unknown> = {};
    for (let turnIndex = 0; answer?.done !== true; turnIndex += 1) {
      const { text } = await agent.reply({ history: messages, language: "en", turnIndex, seed: 1, dialogueId: "s" });
      body = { reply: text, turnIndex };
      answer = await post<StepResponse>(app, `/v1/sessions/${created.sessionId}/step`, body);
      messages = [...messages, { role: "assistant", content: text }, { role: "user", content: answer.message }];
    }
    expect(await post<StepResponse>(app, `/v1/sessions/${created.sessionId}/step`, body)).toEqual(answer);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.turns.map((turn) => turn.agent.text)).toEqual(
      messages.filter((message) => message.role === "assistant").map((message) => message.content),
    );
  });
});

describe("a failing writer", () => {
  it("fails the step that finished the episode (503 recording_failed, retryable); its retry, once the writer works, is answered and recorded once", async () => {
    const written: DialogueRecord[] = [];
    let full = true;
    const server = await buildServer({
      scenarios,
      user: new OfflineSimulatedUser(),
      secret: SECRET,
      recording: {
        condition: "train",
        write: (record) => {
          if (full) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
          if (written.some((item) => item.id === record.id)) return false;
          written.push(record);
          return true;
        },
        health: () => (full ? { state: "failing", error: "no space left on the device (ENOSPC)", since: "now" } : { state: "ok" }),
      },
    });
    try {
      const reset = await post<ResetResponse>(server.app, "/v1/reset", { scenarioId: scenarios[5]!.id, seed: 1 });
      let state = { token: reset.token, messages: reset.messages };
      let failed: { statusCode: number; body: string } | undefined;
      let lastBody = "";
      for (let turn = 0; turn < 40 && failed === undefined; turn += 1) {
        lastBody = JSON.stringify({ ...state, reply: "That sounds hard. What happened next?" });
        const response = await server.app.inject({
          method: "POST",
          url: "/v1/step",
          headers: { "content-type": "application/json" },
          payload: lastBody,
        });
        if (response.statusCode !== 200) failed = response;
        else {
          const step = response.json() as StepResponse;
          expect(step.done, "a step that ends the episode must not be answered while the writer fails").toBe(false);
          state = {
            token: step.token,
            messages: [
              ...state.messages,
              { role: "assistant", content: "That sounds hard. What happened next?" },
              { role: "user", content: step.message },
            ],
          };
        }
      }
      expect(failed?.statusCode).toBe(503);
      expect(JSON.parse(failed!.body)).toMatchObject({ code: "recording_failed", retryable: true });
      expect(JSON.parse(failed!.body).error).toMatch(/disk is full.*send it again/);
      const health = await server.app.inject({ method: "GET", url: "/healthz" });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({
        status: "recorder_failing",
        recorder: { state: "failing", error: "no space left on the device (ENOSPC)" },
      });
      expect((await server.app.inject({ method: "GET", url: "/metrics" })).body).toMatch(/aeb_env_episodes_recorded_total 0/);
      full = false;
      const retried = await server.app.inject({
        method: "POST",
        url: "/v1/step",
        headers: { "content-type": "application/json" },
        payload: lastBody,
      });
      expect(retried.statusCode).toBe(200);
      expect((retried.json() as StepResponse).done).toBe(true);
      const again = await server.app.inject({
        method: "POST",
        url: "/v1/step",
        headers: { "content-type": "application/json" },
        payload: lastBody,
      });
      expect(again.json()).toEqual(retried.json());
      expect(written).toHaveLength(1);
      expect((await server.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      expect((await server.app.inject({ method: "GET", url: "/metrics" })).body).toMatch(/aeb_env_episodes_recorded_total 1\n/);
    } finally {
      await server.close();
    }
  });
});

describe("the --record directory", () => {
  it("gets each episode once, one line each, and aeb report reads it as a run of condition train", async () => {
    const { app } = await serving;
    recorded.length = 0;
    await play(app, { scenarioId: scenarios[3]!.id, seed: 2 }, "step");
    await play(app, { scenarioId: scenarios[4]!.id, seed: 2 }, "step");
    const dir = join(temporaryDirectory(), "train");
    const recorder = new EpisodeRecorder(dir);
    expect(await Promise.all(recorded.map((record) => recorder.append(record)))).toEqual([true, true]);
    expect(await recorder.append(recorded[1]!)).toBe(false); // a retried last step of the stateless API
    await recorder.close();
    // Reopened (a restarted server): the same episode is still known, a new one is appended.
    const reopened = new EpisodeRecorder(dir);
    expect(await reopened.append(recorded[0]!)).toBe(false);
    expect(await reopened.append({ ...recorded[0]!, id: `${recorded[0]!.id}-again` })).toBe(true);
    await reopened.close();
    const lines = readFileSync(join(dir, "dialogues.jsonl"), "utf8").trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as DialogueRecord).id)).toEqual([
      recorded[0]!.id,
      recorded[1]!.id,
      `${recorded[0]!.id}-again`,
    ]);
    const run = loadRunForReport(dir);
    expect(run.summary.conditions.map((condition) => [condition.name, condition.n])).toEqual([["train", 3]]);
    expect(run.readingNotes.join(" ")).not.toMatch(/run seed/);
    expect(renderMarkdownReport({ summary: run.summary, rows: run.rows, transcripts: run.transcripts })).toContain("train");
  });

  it("refuses a directory that holds another run", () => {
    const benchmark = join(temporaryDirectory(), "run");
    mkdirSync(benchmark);
    writeFileSync(join(benchmark, "run.json"), JSON.stringify({ format: 1, configHash: "0123456789abcdef", config: {} }));
    expect(() => new EpisodeRecorder(benchmark)).toThrow(/holds run\.json of another run.*record into a directory of its own/);
    const adopted = join(temporaryDirectory(), "loose");
    mkdirSync(adopted);
    writeFileSync(join(adopted, "dialogues.jsonl"), "");
    expect(() => new EpisodeRecorder(adopted)).toThrow(/has dialogues\.jsonl but no run\.json/);
    expect(existsSync(join(adopted, "run.json"))).toBe(false);
  });
});
