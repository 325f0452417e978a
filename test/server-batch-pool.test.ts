/**
 * Batched steps in the step pool's threads: the same answers as single steps (tokens included),
 * one bad step failing alone, bad requests refused as a whole, and the event loop free while a
 * large batch is played: health checks and single steps are answered before it finishes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { BatchStepResponseSchema, type ResetResponse, type StepResponse } from "../src/server/api-schemas.js";
import { buildServer, type EnvironmentServer, type ServerOptions } from "../src/server/app.js";
import { DelayedSimulatedUser } from "../src/testing/delayed-user.js";
import { SOURCE_STEP_WORKER } from "./helpers/source-worker.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
const SECRET = "test-secret-test-secret-test-secret";
const servers: EnvironmentServer[] = [];

async function start(options: Partial<ServerOptions> = {}): Promise<EnvironmentServer> {
  const server = await buildServer({
    scenarios,
    user: new OfflineSimulatedUser(),
    secret: SECRET,
    stepThreads: 1,
    stepWorker: SOURCE_STEP_WORKER,
    ...options,
  });
  servers.push(server);
  return server;
}

/** One server with a pool thread, shared by the tests (a thread takes a while to start). */
const pooled = start({ batchBodyLimitBytes: 6 * 1024 * 1024 });

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

type BatchBody = { results: Array<{ ok: boolean; result?: StepResponse; status?: number; error?: { code: string; error: string } }> };

async function post<T>(app: FastifyInstance, url: string, payload: unknown) {
  const response = await app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/json" },
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
  });
  return { status: response.statusCode, body: response.json() as T, raw: response.body, headers: response.headers };
}

/** The server's counters, by name and labels. */
async function counters(app: FastifyInstance): Promise<Map<string, number>> {
  const text = (await app.inject({ method: "GET", url: "/metrics" })).body;
  return new Map(
    text
      .split("\n")
      .flatMap((line) => (/^(\S+) (\S+)$/.exec(line) ? [[line.split(" ")[0]!, Number(line.split(" ")[1])] as [string, number]] : [])),
  );
}

/** The first step of an episode per scenario, with a reply from the attuned agent. */
async function firstSteps(app: FastifyInstance, count: number, reply?: string) {
  const agent = createReferenceAgent("attuned");
  const steps = [];
  for (let index = 0; index < count; index += 1) {
    const scenario = scenarios[index % scenarios.length]!;
    const reset = (await post<ResetResponse>(app, "/v1/reset", { scenarioId: scenario.id, seed: index })).body;
    const text =
      reply ??
      (
        await agent.reply({
          history: reset.messages,
          language: scenario.language,
          turnIndex: 0,
          seed: reset.episodeSeed,
          dialogueId: reset.episodeId,
        })
      ).text;
    steps.push({ token: reset.token, messages: reset.messages, reply: text });
  }
  return steps;
}

describe("batches in the step pool", () => {
  it("uses the pool for the offline user only", async () => {
    expect((await pooled).pool?.size).toBe(1);
    expect((await start({ user: new DelayedSimulatedUser({ latencyMs: 0 }) })).pool).toBeUndefined();
    expect((await start({ stepThreads: 0 })).pool).toBeUndefined();
  });

  it.skipIf(process.platform !== "linux")("runs its threads at a lower CPU priority than the event loop (Linux)", async () => {
    await pooled;
    const niceOf = (task: string) => {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    const main = niceOf(String(process.pid));
    const tasks = readdirSync("/proc/self/task").map(niceOf);
    // No thread ever runs at a higher priority than the event loop.
    expect(Math.min(...tasks)).toBe(main);
    const lowered = tasks.filter((nice) => nice > main);
    if (main < 10) {
      // The pool's threads went down to nice 10.
      expect(lowered.length).toBeGreaterThan(0);
      expect(Math.min(...lowered)).toBe(10);
    } else {
      // The tests already run at nice 10 or lower priority: the threads keep the loop's priority.
      expect(lowered).toEqual([]);
    }
  });

  it("answers each step as a single step would, byte for byte; a bad step fails alone", async () => {
    const { app } = await pooled;
    const steps = await firstSteps(app, 4);
    const before = await counters(app);
    const singles = await Promise.all(steps.map((step) => post<StepResponse>(app, "/v1/step", step)));
    const batch = await post<BatchBody>(app, "/v1/step/batch", {
      steps: [steps[0], { token: "v1.bad.bad", messages: steps[1]!.messages, reply: "x" }, steps[1], { reply: 3 }, steps[2], steps[3]],
    });
    expect(batch.status).toBe(200);
    expect(batch.headers["content-type"]).toMatch(/^application\/json/);
    BatchStepResponseSchema.parse(batch.body);
    const results = batch.body.results;
    expect(results.map((result) => result.ok)).toEqual([true, false, true, false, true, true]);
    expect([results[0], results[2], results[4], results[5]].map((result) => JSON.stringify(result!.result))).toEqual(
      singles.map((single) => single.raw),
    );
    expect(results[1]).toMatchObject({ status: 400, error: { code: "invalid_token" } });
    expect(results[3]).toMatchObject({ status: 400, error: { code: "invalid_request" } });
    expect(results[3]!.error!.error).toMatch(/invalid step 3: token: .*; messages: .*; reply: /);
    const after = await counters(app);
    const added = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(added('aeb_env_steps_total{api="batch",outcome="ok"}')).toBe(4);
    expect(added('aeb_env_steps_total{api="batch",outcome="invalid_token"}')).toBe(1);
    // Four batched steps in the thread, four single steps on the event loop.
    expect(added('aeb_env_simulator_calls_total{stage="appraise",outcome="ok"}')).toBe(8);
  });

  it("refuses a bad request as a whole: not JSON, empty, no steps, too many steps, too large", async () => {
    const { app } = await pooled;
    const notJson = await post<{ code: string; error: string }>(app, "/v1/step/batch", '{"steps": [');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ code: "invalid_json" });
    expect(notJson.body.error).toMatch(/not valid JSON/);
    const empty = await post<{ code: string }>(app, "/v1/step/batch", "");
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe("invalid_json");
    const noSteps = await post<{ code: string; issues: Array<{ path: string }> }>(app, "/v1/step/batch", { step: [] });
    expect(noSteps.status).toBe(400);
    expect(noSteps.body.issues.map((issue) => issue.path)).toContain("steps");
    const step = { token: "t", messages: [{ role: "user", content: "x" }], reply: "y" };
    const tooMany = await post<{ code: string; error: string }>(app, "/v1/step/batch", { steps: Array.from({ length: 257 }, () => step) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/steps: /);
    const tooLarge = await post<{ code: string }>(app, "/v1/step/batch", { steps: [{ ...step, reply: "x".repeat(6.5 * 1024 * 1024) }] });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe("body_too_large");
    const text = await app.inject({ method: "POST", url: "/v1/step/batch", headers: { "content-type": "text/plain" }, payload: "hello" });
    expect(text.statusCode).toBe(415);
  });

  it("keeps the event loop free: while 256 long replies are played, /healthz and a single step are answered first", async () => {
    const { app } = await pooled;
    const long = "It sounds like you're feeling hurt and frustrated that your manager blamed you in front of everyone. "
      .repeat(200)
      .slice(0, 20_000);
    const one = await firstSteps(app, 16, long);
    const steps = Array.from({ length: 256 }, (_, index) => one[index % one.length]!);
    const order: string[] = [];
    const batch = post<BatchBody>(app, "/v1/step/batch", { steps }).then((response) => {
      order.push("batch");
      return response;
    });
    // Let the batch reach its thread, then ask the event loop for other work.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const health = app.inject({ method: "GET", url: "/healthz" }).then((response) => {
      order.push("healthz");
      return response.statusCode;
    });
    const single = post<StepResponse>(app, "/v1/step", one[0]).then((response) => {
      order.push("step");
      return response.status;
    });
    expect(await Promise.all([health, single])).toEqual([200, 200]);
    const done = await batch;
    expect(done.status).toBe(200);
    expect(done.body.results.every((result) => result.ok)).toBe(true);
    expect(order.indexOf("batch")).toBe(2);
  });
});
