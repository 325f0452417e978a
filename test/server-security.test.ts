/**
 * Bad input, forgery and replay, auth, limits, model failures and graceful shutdown: every bad
 * request gets a 4xx with a JSON error that says what is wrong, and the server keeps serving.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { ResetResponse, StepResponse } from "../src/server/api-schemas.js";
import { assertServerBinding, buildServer, isLoopbackHost, type EnvironmentServer, type ServerOptions } from "../src/server/app.js";
import { DelayedSimulatedUser, SimulatedModelError } from "../src/testing/delayed-user.js";
import { hashHistory, StateTokenCodec, type TokenPayload } from "../src/server/state-token.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
const SECRET = "test-secret-test-secret-test-secret";
const servers: EnvironmentServer[] = [];

async function start(options: Partial<ServerOptions> = {}): Promise<EnvironmentServer> {
  const server = await buildServer({ scenarios, user: new OfflineSimulatedUser(), secret: SECRET, ...options });
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close().catch(() => undefined)));
});

interface ErrorReply {
  error: string;
  code: string;
  retryable: boolean;
  issues?: Array<{ path: string; message: string }>;
}

async function post<T = ErrorReply>(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = {}) {
  const response = await app.inject({
    method: "POST",
    url,
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
    headers: { "content-type": "application/json", ...headers },
  });
  return { status: response.statusCode, body: response.json() as T, headers: response.headers };
}

async function reset(app: FastifyInstance, body: Record<string, unknown> = { scenarioId: scenarios[0]!.id, seed: 1 }) {
  const response = await post<ResetResponse>(app, "/v1/reset", body);
  expect(response.status).toBe(200);
  return response.body;
}

/** The server still answers health checks and plays a valid step. */
async function stillServes(app: FastifyInstance): Promise<void> {
  expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
  const started = await reset(app);
  expect(
    (await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "What happened at the exam?" })).status,
  ).toBe(200);
}

/** Resolves once the simulated user has been called (a step is in flight). */
async function untilCalled(user: DelayedSimulatedUser): Promise<void> {
  while (user.calls.appraise === 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

function decode(token: string): TokenPayload {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as TokenPayload;
}

function withPayload(token: string, payload: TokenPayload): string {
  const [version, , signature] = token.split(".");
  return `${version}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature}`;
}

describe("bad input: a 4xx with a JSON error that says what is wrong", () => {
  it("malformed JSON", async () => {
    const { app } = await start();
    const response = await post(app, "/v1/step", '{"token": "v1.a.b", "messages": [');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_json", retryable: false });
    expect(response.body.error).toMatch(/not valid JSON/);
    await stillServes(app);
  });

  it("an empty body, and a body that is not JSON", async () => {
    const { app } = await start();
    const empty = await app.inject({ method: "POST", url: "/v1/reset", headers: { "content-type": "application/json" }, payload: "" });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: "invalid_json" });
    const text = await app.inject({ method: "POST", url: "/v1/reset", headers: { "content-type": "text/plain" }, payload: "hello" });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ code: "unsupported_media_type" });
    await stillServes(app);
  });

  it("missing fields are each named", async () => {
    const { app } = await start();
    const response = await post(app, "/v1/step", { token: "v1.a.b" });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_request");
    expect(response.body.issues?.map((issue) => issue.path).sort()).toEqual(["messages", "reply"]);
    expect(response.body.error).toMatch(/messages: .*expected array/);
  });

  it("wrong types are refused, never coerced", async () => {
    const { app } = await start();
    for (const body of [
      { seed: "1" },
      { seed: 1.5 },
      { seed: -1 },
      { repeat: "0" },
      { preset: "AEB" },
      { rewardMode: "sparse" },
      { scenarioId: 7 },
      { type: "sad" },
      { trainerStep: -1 },
      { trainerStep: "3" },
      { tags: "train" },
    ]) {
      const response = await post(app, "/v1/reset", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe("invalid_request");
      expect(response.body.issues?.[0]?.path).toBe(Object.keys(body)[0]);
    }
    const tagged = await post(app, "/v1/reset", { tags: { split: 1 } });
    expect(tagged.body.issues?.[0]?.path).toBe("tags.split");
    const manyTags = await post(app, "/v1/reset", {
      tags: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`t${index}`, "x"])),
    });
    expect(manyTags.status).toBe(400);
    expect(manyTags.body.error).toMatch(/at most 16 tags/);
    const started = await reset(app);
    for (const reply of [5, null, ["hi"], { text: "hi" }]) {
      const response = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply });
      expect(response.status).toBe(400);
      expect(response.body.issues?.[0]?.path).toBe("reply");
    }
    const badRole = await post(app, "/v1/step", { token: started.token, messages: [{ role: "system", content: "x" }], reply: "hi" });
    expect(badRole.body.issues?.[0]?.path).toBe("messages[0].role");
  });

  it("unknown fields are refused", async () => {
    const { app } = await start();
    const response = await post(app, "/v1/reset", { scenarioId: scenarios[0]!.id, emotion: 100 });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/emotion/);
    const started = await reset(app);
    const step = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi", reward: 1 });
    expect(step.status).toBe(400);
  });

  it("an unknown scenario, or a selection nothing matches", async () => {
    const { app } = await start();
    const unknown = await post(app, "/v1/reset", { scenarioId: "no-such-scenario" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "unknown_scenario" });
    expect(unknown.body.error).toContain("no-such-scenario");
    const none = await post(app, "/v1/reset", { type: "cooperative" });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: "no_matching_scenario" });
    const mismatch = await post(app, "/v1/reset", {
      scenarioId: scenarios[0]!.id,
      type: scenarios[0]!.type === "escalation" ? "gaslighting" : "escalation",
    });
    expect(mismatch.status).toBe(404);
    await stillServes(app);
  });

  it("an oversized body (413)", async () => {
    const { app } = await start({ bodyLimitBytes: 4096 });
    const started = await reset(app);
    const response = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "x".repeat(5000) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: "body_too_large" });
    expect(response.body.error).toContain("4096");
    await stillServes(app);
  });

  it("a reply longer than the API allows", async () => {
    const { app } = await start();
    const started = await reset(app);
    const response = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "x".repeat(20_001) });
    expect(response.status).toBe(400);
    expect(response.body.issues?.[0]?.path).toBe("reply");
  });

  it("too many requests (429, retryable, with Retry-After)", async () => {
    const { app } = await start({ rateLimit: 3, rateWindowMs: 60_000 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof post>> | undefined;
    for (let index = 0; index < 5; index += 1) {
      last = await post(app, "/v1/reset", { scenarioId: scenarios[0]!.id });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.body).toMatchObject({ code: "rate_limited", retryable: true });
    expect(Number(last!.headers["retry-after"])).toBeGreaterThan(0);
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200); // health checks are never limited
  });

  it("an unknown route", async () => {
    const { app } = await start();
    const response = await post(app, "/v1/stepp", {});
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: "route_not_found" });
  });
});

describe("tokens: no forged emotion, no replay against another history", () => {
  it("refuses a token whose payload was edited (emotion 100), with any signature it can guess", async () => {
    const { app } = await start();
    const started = await reset(app);
    const forged = withPayload(started.token, { ...decode(started.token), emotion: 100 });
    const response = await post(app, "/v1/step", { token: forged, messages: started.messages, reply: "hi" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_token" });
    expect(response.body.error).toMatch(/signature does not verify/);
    const unsigned = `${started.token.split(".").slice(0, 2).join(".")}.`;
    expect((await post(app, "/v1/step", { token: unsigned, messages: started.messages, reply: "hi" })).body.code).toBe("invalid_token");
  });

  it("refuses a token signed with another secret (another server), and malformed tokens", async () => {
    const { app } = await start();
    const other = await start({ secret: "another-secret-another-secret" });
    const foreign = await reset(other.app);
    const response = await post(app, "/v1/step", { token: foreign.token, messages: foreign.messages, reply: "hi" });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_token");
    for (const token of ["garbage", "v2.a.b", "v1.a", "v1.!!!.###"]) {
      const malformed = await post(app, "/v1/step", { token, messages: foreign.messages, reply: "hi" });
      expect(malformed.status, token).toBe(400);
      expect(malformed.body.code).toBe("invalid_token");
    }
  });

  it("a replica with the same secret accepts the token (any replica can serve any step)", async () => {
    const first = await start();
    const second = await start();
    const started = await reset(first.app);
    const body = { token: started.token, messages: started.messages, reply: "That exam result sounds crushing." };
    const here = await post<StepResponse>(first.app, "/v1/step", body);
    const there = await post<StepResponse>(second.app, "/v1/step", body);
    expect(there.status).toBe(200);
    expect(there.body).toEqual(here.body);
  });

  it("refuses a token replayed against a different history (409 history_mismatch)", async () => {
    const { app } = await start();
    const started = await reset(app);
    const first = await post<StepResponse>(app, "/v1/step", {
      token: started.token,
      messages: started.messages,
      reply: "Tell me about the exam.",
    });
    const history = [
      ...started.messages,
      { role: "assistant", content: "Tell me about the exam." },
      { role: "user", content: first.body.message },
    ];
    // Same length, one word of the agent's earlier turn changed.
    const edited = history.map((message, index) => (index === 1 ? { ...message, content: "Tell me about the committee." } : message));
    const changed = await post(app, "/v1/step", { token: first.body.token, messages: edited, reply: "hi" });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: "history_mismatch" });
    // The user's reply rewritten to something more flattering.
    const flattering = history.map((message, index) =>
      index === 2 ? { ...message, content: "You are wonderful, I feel great." } : message,
    );
    expect((await post(app, "/v1/step", { token: first.body.token, messages: flattering, reply: "hi" })).body.code).toBe(
      "history_mismatch",
    );
    // The old token with the new history, and the new token with the old history.
    const oldTokenNewHistory = await post(app, "/v1/step", { token: started.token, messages: history, reply: "hi" });
    expect(oldTokenNewHistory.status).toBe(409);
    expect(oldTokenNewHistory.body.error).toMatch(/needs 1 message/);
    expect((await post(app, "/v1/step", { token: first.body.token, messages: started.messages, reply: "hi" })).body.code).toBe(
      "history_mismatch",
    );
    // Roles out of order.
    const swapped = [history[0], { ...history[2], role: "user" }, { ...history[1], role: "assistant" }];
    expect((await post(app, "/v1/step", { token: first.body.token, messages: swapped, reply: "hi" })).body.error).toMatch(
      /messages\[1\] should have role assistant/,
    );
    // A token from another episode with this episode's history.
    const otherEpisode = await reset(app, { scenarioId: scenarios[1]!.id, seed: 1 });
    expect((await post(app, "/v1/step", { token: otherEpisode.token, messages: started.messages, reply: "hi" })).body.code).toBe(
      "history_mismatch",
    );
    await stillServes(app);
  });

  it("accepts a token replayed with its own history: the same state gives the same answer", async () => {
    const { app } = await start();
    const started = await reset(app);
    const body = { token: started.token, messages: started.messages, reply: "Tell me about the exam." };
    const first = await post<StepResponse>(app, "/v1/step", body);
    await post(app, "/v1/step", {
      token: first.body.token,
      messages: [...started.messages, { role: "assistant", content: body.reply }, { role: "user", content: first.body.message }],
      reply: "And then?",
    });
    const replayed = await post<StepResponse>(app, "/v1/step", body);
    expect(replayed.body).toEqual(first.body);
  });

  it("refuses a token for a scenario this server holds differently, or another simulated user", async () => {
    const { app } = await start();
    const started = await reset(app);
    const changedScenarios = scenarios.map((scenario) =>
      scenario.id === scenarios[0]!.id ? { ...scenario, opening: `${scenario.opening} (edited)` } : scenario,
    );
    const edited = await start({ scenarios: changedScenarios });
    const response = await post(edited.app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi" });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe("scenario_changed");
    const delayed = await start({ user: new DelayedSimulatedUser({ latencyMs: 0 }) });
    const other = await post(delayed.app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi" });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("simulator_changed");
  });

  it("accepts one spelling of a signature only: no padding, no standard-base64 letters, no other trailing bits", async () => {
    const { app } = await start();
    const started = await reset(app);
    const [version, body, signature] = started.token.split(".") as [string, string, string];
    const bytes = Buffer.from(signature, "base64url");
    const last = signature.at(-1)!;
    // 32 bytes in 43 characters leave 2 spare bits in the last one: flipping them decodes to the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(sibling, "base64url")).toEqual(bytes);
    const spellings = [`${signature}=`, bytes.toString("base64"), sibling, ` ${signature}`];
    for (const spelling of spellings.filter((item) => item !== signature)) {
      const response = await post(app, "/v1/step", { token: `${version}.${body}.${spelling}`, messages: started.messages, reply: "hi" });
      expect(response.status, spelling).toBe(400);
      expect(response.body.code).toBe("invalid_token");
    }
    expect((await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi" })).status).toBe(200);
  });

  it("signs deterministically, binds the history by hash, and never accepts a short secret", () => {
    const codec = new StateTokenCodec(SECRET);
    const payload: TokenPayload = {
      scenarioId: "s",
      scenarioHash: "h",
      simulator: "offline",
      preset: "aeb",
      rewardMode: "final",
      episodeId: "e",
      runSeed: 1,
      repeat: 0,
      seed: 2,
      emotion: 50,
      turnIndex: 0,
      memory: {},
      done: false,
      endReason: null,
      historyHash: hashHistory([{ role: "user", content: "hello" }]),
    };
    expect(codec.sign(payload)).toBe(codec.sign(payload));
    expect(codec.verify(codec.sign(payload))).toEqual(payload);
    expect(hashHistory([{ role: "user", content: "hello" }])).not.toBe(hashHistory([{ role: "user", content: "hello " }]));
    expect(
      hashHistory([
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
      ]),
    ).not.toBe(
      hashHistory([
        { role: "user", content: 'a","assistant' },
        { role: "assistant", content: "b" },
      ]),
    );
    expect(() => new StateTokenCodec("short")).toThrow(/at least 16 bytes/);
  });
});

describe("auth", () => {
  it("requires the bearer token everywhere but /healthz and the docs", async () => {
    const { app } = await start({ authToken: "s3cret-token" });
    const missing = await post(app, "/v1/reset", {});
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: "unauthorized" });
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect((await post(app, "/v1/reset", {}, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post(app, "/v1/reset", {}, { authorization: "Basic s3cret-token" })).status).toBe(401);
    expect((await post(app, "/v1/reset", {}, { authorization: "Bearer s3cret-token" })).status).toBe(200);
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/openapi.json" })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/nowhere" })).statusCode).toBe(401); // routes are not revealed either
  });

  it("counts failed authentications: a client that keeps guessing is refused (429) until the window ends", async () => {
    const { app } = await start({ authToken: "right-token-right-token", authFailureLimit: 3 });
    const guesses = [];
    for (let index = 0; index < 3; index += 1)
      guesses.push((await post(app, "/v1/reset", {}, { authorization: `Bearer guess-${index}` })).status);
    expect(guesses).toEqual([401, 401, 401]);
    const blocked = await post(app, "/v1/reset", {}, { authorization: "Bearer right-token-right-token" });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: "rate_limited", retryable: true });
    expect(blocked.body.error).toMatch(/too many failed authentications/);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
  });

  it("counts refused requests towards the rate limit too", async () => {
    const { app } = await start({ authToken: "right-token-right-token", rateLimit: 3, rateWindowMs: 60_000 });
    for (let index = 0; index < 3; index += 1)
      expect((await post(app, "/v1/reset", {}, { authorization: "Bearer wrong" })).status).toBe(401);
    const limited = await post(app, "/v1/reset", {}, { authorization: "Bearer right-token-right-token" });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/at most 3 per 60 s/);
  });

  it("refuses to listen beyond loopback without a bearer token", async () => {
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("::1")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("0.0.0.0")).toBe(false);
    expect(isLoopbackHost("10.0.0.5")).toBe(false);
    expect(() => assertServerBinding("0.0.0.0", undefined)).toThrow(/needs a bearer token/);
    expect(() => assertServerBinding("0.0.0.0", "")).toThrow(/needs a bearer token/);
    // Beyond loopback the token must be long enough not to be guessed (the rule is named).
    expect(() => assertServerBinding("0.0.0.0", "token")).toThrow(/at least 16 characters/);
    expect(() => assertServerBinding("0.0.0.0", "a-bearer-token-of-32-characters!")).not.toThrow();
    expect(() => assertServerBinding("127.0.0.1", "short")).not.toThrow();
    const server = await start();
    await expect(server.listen({ host: "0.0.0.0", port: 0 })).rejects.toThrow(/needs a bearer token/);
  });
});

describe("simulated-user failures", () => {
  it("a retryable model failure is a 503 marked retryable, and retrying the same step is safe", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 0 });
    const { app } = await start({ user });
    const reference = await start({ user: new DelayedSimulatedUser({ latencyMs: 0 }) });
    const started = await reset(app);
    const body = { token: started.token, messages: started.messages, reply: "That sounds humiliating, in front of everyone." };
    user.failNext(1, () => new SimulatedModelError("HTTP 503 from the model endpoint", true));
    const failed = await post(app, "/v1/step", body);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ code: "simulator_unavailable", retryable: true });
    expect(failed.body.error).not.toContain("HTTP 503 from the model endpoint"); // no internal text
    const retried = await post<StepResponse>(app, "/v1/step", body);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual((await post<StepResponse>(reference.app, "/v1/step", body)).body);
    // A failure in the second stage (the in-persona reply, after the emotion moved) is just as safe to retry.
    user.failNext(1, () => new SimulatedModelError("timeout", true), "reply");
    const secondStage = await post(app, "/v1/step", body);
    expect(secondStage.status).toBe(503);
    expect(secondStage.body).toMatchObject({ code: "simulator_unavailable", retryable: true });
    expect((await post<StepResponse>(app, "/v1/step", body)).body).toEqual(retried.body);
    const metrics = (await app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toMatch(/aeb_env_simulator_calls_total\{stage="appraise",outcome="error"\} 1/);
    expect(metrics).toMatch(/aeb_env_simulator_calls_total\{stage="reply",outcome="error"\} 1/);
    expect(metrics).toContain('aeb_env_errors_total{code="simulator_unavailable",status="503"} 2');
  });

  it("a failure the model client marks not retryable is a 502", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 0 });
    const { app } = await start({ user });
    const started = await reset(app);
    user.failNext(1, () => new SimulatedModelError("HTTP 400: context length exceeded", false));
    const failed = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi" });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: "simulator_failed", retryable: false });
    await stillServes(app);
  });

  it("a step slower than the step timeout is a 504 marked retryable", async () => {
    const { app } = await start({ user: new DelayedSimulatedUser({ latencyMs: 300 }), stepTimeoutMs: 50 });
    const started = await reset(app);
    const slow = await post(app, "/v1/step", { token: started.token, messages: started.messages, reply: "hi" });
    expect(slow.status).toBe(504);
    expect(slow.body).toMatchObject({ code: "step_timeout", retryable: true });
  });

  it("a session plays one step at a time (409 for another reply while one is in flight)", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 1000 });
    const { app } = await start({ user });
    const created = (await post<{ sessionId: string }>(app, "/v1/sessions", { scenarioId: scenarios[0]!.id })).body;
    const [first, second] = await Promise.all([
      post(app, `/v1/sessions/${created.sessionId}/step`, { reply: "one", turnIndex: 0 }),
      // The second step, another reply for the same turn, is sent once the first is inside the simulated user.
      untilCalled(user).then(() => post(app, `/v1/sessions/${created.sessionId}/step`, { reply: "two", turnIndex: 0 })),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: "session_busy", retryable: true });
  });
});

/** One keep-alive connection: requests go out on the same socket, one at a time. */
function keepAliveClient(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; socket: unknown }>((resolve, reject) => {
      const target = new URL(path, url);
      const outgoing = http.request(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.pathname,
          method,
          agent,
          headers: { "content-type": "application/json" },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text, socket: outgoing.socket }),
          );
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body === undefined ? undefined : JSON.stringify(body));
    });
  return { request, close: () => agent.destroy() };
}

describe("graceful shutdown (SIGTERM)", () => {
  it("answers requests on idle keep-alive connections with 503 and Connection: close while in-flight steps finish", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 400 });
    const server = await start({ user });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const idle = keepAliveClient(url);
    const warm = await idle.request("GET", "/healthz");
    expect(warm.status).toBe(200);
    const started = JSON.parse((await idle.request("POST", "/v1/reset", { scenarioId: scenarios[0]!.id })).body) as ResetResponse;
    const busy = keepAliveClient(url);
    const inFlight = busy.request("POST", "/v1/step", { token: started.token, messages: started.messages, reply: "Still with you." });
    await untilCalled(user);
    const stopped = server.shutdown(5000);
    // The idle connection is still open: its next request is answered, not reset.
    const refused = await idle.request("POST", "/v1/reset", { scenarioId: scenarios[0]!.id });
    expect(refused.socket).toBe(warm.socket);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ code: "shutting_down", retryable: true });
    expect(refused.headers.connection).toBe("close");
    const health = keepAliveClient(url);
    await expect(health.request("GET", "/healthz")).rejects.toThrow(); // no new connections
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.headers.connection).toBe("close");
    expect(await stopped).toEqual({ cutRequests: 0 });
    for (const client of [idle, busy, health]) client.close();
  });

  it("reports the requests a shutdown timeout cuts", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 2000 });
    const server = await start({ user });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const started = (await (
      await fetch(`${url}/v1/reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scenarioId: scenarios[0]!.id }),
      })
    ).json()) as ResetResponse;
    const inFlight = fetch(`${url}/v1/step`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: started.token, messages: started.messages, reply: "hi" }),
    });
    await untilCalled(user);
    expect(await server.shutdown(50)).toEqual({ cutRequests: 1 });
    await expect(inFlight).rejects.toThrow();
  });
});

describe("graceful shutdown", () => {
  it("finishes in-flight steps, then stops accepting connections", async () => {
    const user = new DelayedSimulatedUser({ latencyMs: 500 });
    const server = await start({ user });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const started = (await (
      await fetch(`${url}/v1/reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ scenarioId: scenarios[0]!.id }),
      })
    ).json()) as ResetResponse;
    const inFlight = fetch(`${url}/v1/step`, {
      method: "POST",
      headers: { "content-type": "application/json", connection: "close" },
      body: JSON.stringify({ token: started.token, messages: started.messages, reply: "Still with you." }),
    });
    await untilCalled(user);
    const closed = server.close();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as StepResponse).turnIndex).toBe(1);
    await closed;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

/** A raw connection to a listening server, for clients that misbehave; resolves `closed` with what the server sent and when it hung up. */
function rawConnection(url: string) {
  const target = new URL(url);
  const socket = net.connect(Number(target.port), target.hostname);
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
  socket.on("error", () => undefined);
  const opened = Date.now();
  const closed = new Promise<{ afterMs: number; received: string }>((resolve) =>
    socket.once("close", () => resolve({ afterMs: Date.now() - opened, received })),
  );
  return { socket, closed };
}

describe("DNS rebinding: a loopback server answers only requests addressed to this machine", () => {
  it("refuses any other Host with 421 (resets, steps, health), accepts 127.0.0.1, localhost, [::1] and --allow-host names", async () => {
    const server = await start({ allowedHosts: ["proxy.internal"] });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const port = new URL(url).port;
    const send = (host: string, path = "/v1/reset", to = port) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = http.request(
          {
            host: "127.0.0.1",
            port: to,
            path,
            method: path === "/healthz" ? "GET" : "POST",
            headers: { host, "content-type": "application/json" },
          },
          (response) => {
            let text = "";
            response.on("data", (chunk: Buffer) => (text += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
          },
        );
        outgoing.on("error", reject);
        outgoing.end(path === "/healthz" ? undefined : "{}");
      });
    for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1.evil.example", "localhost.evil.example"]) {
      const refused = await send(host);
      expect(refused.status, host).toBe(421);
      expect(JSON.parse(refused.body)).toMatchObject({ code: "misdirected_request", retryable: false });
      expect((await send(host, "/healthz")).status).toBe(421);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "LOCALHOST", `proxy.internal:${port}`])
      expect((await send(host)).status, host).toBe(200);
    // Beyond loopback the bearer token guards the server, and the Host is not checked.
    const open = await start({ authToken: "a-long-enough-bearer-token" });
    const openUrl = await open.listen({ host: "0.0.0.0", port: 0 });
    expect((await send("aeb.example.org", "/healthz", new URL(openUrl).port)).status).toBe(200);
  });
});

describe("slow clients", () => {
  it("a stuck header and a trickled body are answered 408 and disconnected within a second of --request-timeout", async () => {
    const server = await start({ requestTimeoutMs: 1000 });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const header = rawConnection(url);
    header.socket.write("POST /v1/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n");
    const body = rawConnection(url);
    body.socket.write("POST /v1/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{");
    const trickle = setInterval(() => body.socket.write(" "), 100);
    const silent = rawConnection(url);
    const [stuck, trickled, quiet] = await Promise.all([header.closed, body.closed, silent.closed]);
    clearInterval(trickle);
    for (const [name, closed] of Object.entries({ stuck, trickled, quiet })) {
      expect(closed.afterMs, name).toBeGreaterThanOrEqual(900);
      expect(closed.afterMs, name).toBeLessThan(2000);
    }
    expect(stuck.received).toMatch(/^HTTP\/1\.1 408/);
    expect(trickled.received).toMatch(/^HTTP\/1\.1 408/);
    await stillServes(server.app);
  });

  it("caps open connections: beyond --max-connections a new one is closed at once, and the server keeps serving", async () => {
    const server = await start({ maxConnections: 5, requestTimeoutMs: 5000 });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const held = Array.from({ length: 5 }, () => rawConnection(url));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const extra = rawConnection(url);
    const refused = await extra.closed;
    expect(refused.afterMs).toBeLessThan(1000);
    expect(refused.received).toBe("");
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
