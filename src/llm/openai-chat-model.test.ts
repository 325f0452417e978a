import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRequest } from "./chat-model.js";
import { abortableSleep } from "./clock.js";
import type { ModelEndpointConfigInput } from "./endpoint-config.js";
import {
  ModelAbortedError,
  ModelCallError,
  ModelConnectionError,
  ModelEmptyCompletionError,
  ModelHttpError,
  ModelIncompleteStreamError,
  ModelResponseError,
  ModelTimeoutError,
} from "./errors.js";
import { startMockLlmServer, type MockLlmServer, type MockLlmServerOptions } from "../testing/mock-llm-server.js";
import { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
import { createResponseCache } from "./response-cache.js";

const servers: MockLlmServer[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(tempDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function mock(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const server = await startMockLlmServer(options);
  servers.push(server);
  return server;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "aeb-llm-"));
  tempDirs.push(dir);
  return dir;
}

/** A back-off recorder: every wait is noted and skipped, so retries cost no wall time. */
function recordingSleep(): { waits: number[]; sleep: NonNullable<OpenAIChatModelOptions["sleep"]> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

/** A client for the mock model whose back-off waits are recorded, not slept. */
function model(config: Partial<ModelEndpointConfigInput>, options: Partial<OpenAIChatModelOptions> = {}) {
  const { waits, sleep } = recordingSleep();
  const chat = createOpenAIChatModel({ model: "mock-model", ...config }, { role: "agent", sleep, ...options });
  return { chat, waits };
}

const hello: ChatRequest = { messages: [{ role: "user", content: "How are you feeling today?" }] };

/** Both transports: one JSON body per reply (the default) and server-sent events. */
const TRANSPORTS = [
  { name: "JSON replies", stream: false },
  { name: "streamed replies", stream: true },
] as const;

describe.each(TRANSPORTS)("createOpenAIChatModel: a reply ($name)", ({ stream }) => {
  it("returns the text and reports usage, endpoint and reasoning", async () => {
    const server = await mock({ reply: { content: "I hear you.", reasoning: "User seems low." } });
    const { chat } = model({ baseUrl: server.url, stream });

    const response = await chat.complete(hello);

    expect(response.text).toBe("I hear you.");
    expect(response.reasoning).toBe("User seems low.");
    expect(response.finishReason).toBe("stop");
    expect(response.cached).toBe(false);
    expect(response.endpoint).toBe(server.url);
    expect(response.usage).toEqual({ promptTokens: 5, completionTokens: 6 });
    expect(chat.usage()).toMatchObject({
      model: "mock-model",
      role: "agent",
      calls: 1,
      requests: 1,
      promptTokens: 5,
      completionTokens: 6,
    });
    const body = server.chatRequests()[0]?.body as Record<string, unknown>;
    expect(body.stream).toBe(stream);
    expect(body.stream_options).toEqual(stream ? { include_usage: true } : undefined);
  });

  it("reports the server's own time for the request where the server sends openai-processing-ms (the mock's drawn latency), apart from the latency it saw", async () => {
    const server = await mock({ reply: "ok", latency: 30 });
    const { chat } = model({ baseUrl: server.url, stream });
    const response = await chat.complete(hello);
    expect(response.serverMs).toBe(30);
    expect(response.latencyMs).toBeGreaterThanOrEqual(30);
  });

  it("reads the `reasoning` field too (OpenRouter / newer vLLM)", async () => {
    const server = await mock({ reply: { content: "ok", reasoning: "thinking" }, reasoningField: "reasoning" });
    const { chat } = model({ baseUrl: server.url, stream });
    expect((await chat.complete(hello)).reasoning).toBe("thinking");
  });
});

describe("createOpenAIChatModel: request body", () => {
  it("sends sampling overrides, structured output and extraBody", async () => {
    const server = await mock({ reply: '{"mood":"sad"}' });
    const { chat } = model({
      baseUrl: server.url,
      temperature: 0.7,
      seed: 1,
      extraBody: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 },
    });
    const schema = { type: "object", properties: { mood: { type: "string" } }, required: ["mood"] };

    const jsonSchema = { name: "mood", schema };
    await chat.complete({ ...hello, temperature: 0.2, maxTokens: 64, stop: ["\n\n"], jsonSchema });

    const body = server.chatRequests()[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: "mock-model",
      temperature: 0.2,
      seed: 1,
      max_tokens: 64,
      stop: ["\n\n"],
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
      response_format: { type: "json_schema", json_schema: { name: "mood", schema, strict: true } },
    });
  });
});

describe("retries", () => {
  it("honours Retry-After in seconds on 429 (asserted through the injected sleep)", async () => {
    const server = await mock({ faults: [{ type: "status", status: 429, retryAfter: 7, on: [1] }] });
    const { chat, waits } = model({ baseUrl: server.url });

    const response = await chat.complete(hello);

    expect(response.text).toBe("Hello from the mock LLM.");
    expect(waits).toEqual([7000]);
    expect(server.chatRequests()).toHaveLength(2);
    expect(chat.usage()).toMatchObject({ calls: 1, requests: 2, retries: 1 });
  });

  it("honours Retry-After as an HTTP date, relative to the injected clock", async () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    const server = await mock({
      faults: [{ type: "status", status: 429, retryAfter: "Wed, 01 Jan 2025 00:00:05 GMT", on: [1] }],
    });
    const { chat, waits } = model({ baseUrl: server.url }, { clock: { now: () => now } });
    await chat.complete(hello);
    expect(waits).toEqual([5000]);
  });

  it("caps Retry-After at retryMaxDelayMs", async () => {
    const server = await mock({ faults: [{ type: "status", status: 503, retryAfter: 3600, on: [1] }] });
    const { chat, waits } = model({ baseUrl: server.url, retryMaxDelayMs: 2000 });
    await chat.complete(hello);
    expect(waits).toEqual([2000]);
  });

  it("retries a 500 with full-jitter back-off, then succeeds", async () => {
    const server = await mock({ faults: [{ type: "status", status: 500, on: [1, 2] }] });
    const { chat, waits } = model({ baseUrl: server.url, retryBaseDelayMs: 100 }, { random: () => 0.5 });

    const response = await chat.complete(hello);

    expect(response.text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(3);
    // random 0.5 of min(cap, base * 2^n): 50, then 100
    expect(waits).toEqual([50, 100]);
  });

  it("gives up after maxRetries and says how many attempts were made", async () => {
    const server = await mock({ faults: [{ type: "status", status: 502 }] });
    const { chat } = model({ baseUrl: server.url, maxRetries: 2 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelHttpError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 502, isRetryable: true, attempts: 3, endpoint: server.url });
    expect((error as Error).message).toContain("gave up after 3 attempts");
    expect(server.chatRequests()).toHaveLength(3);
    expect(chat.usage()).toMatchObject({ calls: 0, failedCalls: 1, requests: 3, retries: 2 });
  });

  it.each([400, 401, 403, 404, 422])("does not retry HTTP %i", async (status) => {
    const server = await mock({ faults: [{ type: "status", status, message: "nope" }] });
    const { chat, waits } = model({ baseUrl: server.url });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelHttpError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status, isRetryable: false, attempts: 1 });
    expect((error as Error).message).toContain(`HTTP ${status}: nope`);
    expect((error as Error).message).toContain('model "mock-model" (role agent)');
    expect(server.chatRequests()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("does not retry a request for a model the server does not serve", async () => {
    const server = await mock();
    const { chat } = model({ baseUrl: server.url, model: "no-such-model" });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, isRetryable: false });
    expect((error as Error).message).toContain("no-such-model");
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe.each(TRANSPORTS)("timeouts and broken connections ($name)", ({ stream }) => {
  it("cuts a hung connection at timeoutMs, retries, then fails with a timeout", async () => {
    const server = await mock({ faults: [{ type: "hang" }] });
    const { chat } = model({ stream, baseUrl: server.url, timeoutMs: 200, idleTimeoutMs: 5000, maxRetries: 1 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ phase: "total", isRetryable: true, attempts: 2 });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("recovers when only the first attempt hangs", async () => {
    const server = await mock({ faults: [{ type: "hang", on: [1] }] });
    const { chat } = model({ stream, baseUrl: server.url, timeoutMs: 200 });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("retries a connection dropped mid-reply", async () => {
    const server = await mock({ faults: [{ type: "drop-mid-stream", afterChunks: 2, on: [1] }] });
    const { chat } = model({ stream, baseUrl: server.url });

    const response = await chat.complete(hello);

    expect(response.text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("reports a connection that keeps dropping as a retryable connection error", async () => {
    const server = await mock({ faults: [{ type: "drop-mid-stream" }] });
    const { chat } = model({ stream, baseUrl: server.url, maxRetries: 1 });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(ModelConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: true, attempts: 2 });
  });

  it("treats a refused connection as retryable and names the endpoint", async () => {
    const server = await mock();
    const deadUrl = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const { chat } = model({ stream, baseUrl: deadUrl, maxRetries: 1 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "ECONNREFUSED", endpoint: deadUrl, attempts: 2 });
    expect((error as Error).message).toContain(deadUrl);
  });
});

describe("JSON replies (stream: false)", () => {
  it("cuts a body that stalls after the headers at timeoutMs (no idle timer without streaming)", async () => {
    const server = await mock({ faults: [{ type: "stall-after-headers" }] });
    const { chat } = model({ baseUrl: server.url, idleTimeoutMs: 50, timeoutMs: 300, maxRetries: 1 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ phase: "total", isRetryable: true, attempts: 2 });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("retries a server error sent as the reply's HTTP status", async () => {
    const server = await mock({ faults: [{ type: "error-event", on: [1] }] });
    const { chat } = model({ baseUrl: server.url });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("does not retry a client-error status and keeps the server's message", async () => {
    const server = await mock({ faults: [{ type: "error-event", code: 400, message: "context too long" }] });
    const { chat } = model({ baseUrl: server.url });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(ModelHttpError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, isRetryable: false });
    expect((error as Error).message).toContain("context too long");
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("retries a 200 whose body is not a chat completion, then names the fault", async () => {
    let requests = 0;
    const htmlPage: OpenAIChatModelOptions["fetch"] = async () => {
      requests++;
      return new Response("<html>proxy says hi</html>", { status: 200, headers: { "content-type": "text/html" } });
    };
    const { chat } = model({ baseUrl: "http://127.0.0.1:9/v1", maxRetries: 1 }, { fetch: htmlPage });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelResponseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: true, attempts: 2 });
    expect((error as Error).message).toContain("not a chat completion");
    expect(requests).toBe(2);
  });

  it("retries a reply without a finish reason", async () => {
    let requests = 0;
    const noFinish: OpenAIChatModelOptions["fetch"] = async () => {
      requests++;
      const completion = {
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "mock-model",
        choices: [{ index: 0, message: { role: "assistant", content: "half a sen" }, finish_reason: requests === 1 ? null : "stop" }],
      };
      return new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } });
    };
    const { chat } = model({ baseUrl: "http://127.0.0.1:9/v1" }, { fetch: noFinish });
    expect((await chat.complete(hello)).finishReason).toBe("stop");
    expect(requests).toBe(2);
  });
});

describe("streamed replies (stream: true)", () => {
  it("cuts a body that stalls after the headers with the idle timeout", async () => {
    const server = await mock({ faults: [{ type: "stall-after-headers", afterChunks: 1 }] });
    const { chat } = model({ stream: true, baseUrl: server.url, idleTimeoutMs: 200, timeoutMs: 60_000, maxRetries: 1 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ phase: "idle", isRetryable: true, attempts: 2 });
    expect((error as Error).message).toContain("idle timeout");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("is not fooled by SSE keep-alive comments during a stall", async () => {
    const server = await mock({ faults: [{ type: "stall-after-headers", keepAliveMs: 20, on: [1] }] });
    const { chat } = model({ stream: true, baseUrl: server.url, idleTimeoutMs: 200 });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("retries a stream that ends cleanly without a finish reason (truncated)", async () => {
    const server = await mock({ faults: [{ type: "truncated-stream", on: [1] }] });
    const { chat } = model({ stream: true, baseUrl: server.url });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()[0]?.fault).toBe("truncated-stream");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("flags truncation as ModelIncompleteStreamError when it persists", async () => {
    const server = await mock({ faults: [{ type: "truncated-stream" }] });
    const { chat } = model({ stream: true, baseUrl: server.url, maxRetries: 0 });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(ModelIncompleteStreamError.isInstance(error)).toBe(true);
  });

  it("accepts a reply whose stream lingers after the finish reason", async () => {
    // role, content, finish and usage chunks are sent; then neither [DONE] nor end of body.
    const server = await mock({ reply: "ok", faults: [{ type: "stall-after-headers", afterChunks: 4 }] });
    const { chat } = model({ stream: true, baseUrl: server.url, idleTimeoutMs: 200 });

    const response = await chat.complete(hello);

    expect(response).toMatchObject({ text: "ok", finishReason: "stop" });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("retries an in-stream server error event", async () => {
    const server = await mock({ faults: [{ type: "error-event", on: [1] }] });
    const { chat } = model({ stream: true, baseUrl: server.url });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("does not retry an in-stream error that carries a client-error code", async () => {
    const server = await mock({ faults: [{ type: "error-event", code: 400, message: "context too long" }] });
    const { chat } = model({ stream: true, baseUrl: server.url });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(ModelResponseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toContain("context too long");
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe.each(TRANSPORTS)("empty completions ($name)", ({ stream }) => {
  it("retries an empty completion once, and succeeds if the resample has text", async () => {
    const server = await mock({ faults: [{ type: "empty-completion", on: [1] }] });
    const { chat } = model({ stream, baseUrl: server.url });
    expect((await chat.complete(hello)).text).toBe("Hello from the mock LLM.");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("fails after a single retry when the model keeps answering nothing", async () => {
    const server = await mock({ faults: [{ type: "empty-completion" }] });
    const { chat } = model({ stream, baseUrl: server.url, maxRetries: 4 });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(ModelEmptyCompletionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ attempts: 2, finishReason: "stop" });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("does not retry an empty completion cut by the token limit", async () => {
    const server = await mock({ reply: { content: "   ", reasoning: "long thoughts", finishReason: "length" } });
    const { chat } = model({ stream, baseUrl: server.url });
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "empty-completion", isRetryable: false, finishReason: "length" });
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe("replicas and concurrency", () => {
  it("spreads concurrent requests over replicas by fewest in-flight", async () => {
    const a = await mock({ latency: 50 });
    const b = await mock({ latency: 50 });
    const { chat } = model({ baseUrls: [a.url, b.url] });

    const responses = await Promise.all(Array.from({ length: 10 }, () => chat.complete(hello)));

    expect(a.chatRequests()).toHaveLength(5);
    expect(b.chatRequests()).toHaveLength(5);
    expect(new Set(responses.map((r) => r.endpoint))).toEqual(new Set([a.url, b.url]));
  });

  it("respects maxConcurrencyPerEndpoint, queueing the rest", async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    // Replies are held until the gate opens, so the server sees the client's full concurrency.
    const server = await mock({ reply: async () => (await gate, "ok") });
    const waits: number[] = [];
    const { chat } = model({ baseUrl: server.url, maxConcurrencyPerEndpoint: 3 }, { onQueued: (queued) => waits.push(queued) });

    const all = Promise.all(Array.from({ length: 12 }, () => chat.complete(hello)));
    while (server.inFlight < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.chatRequests()).toHaveLength(3);
    expect(chat.inFlight()).toEqual([3]);
    openGate();
    await all;

    expect(server.chatRequests()).toHaveLength(12);
    expect(server.maxConcurrent).toBe(3);
    // The 9 calls beyond the cap were each told they wait, with the queue growing to 9.
    expect(waits).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("sends the retry to another replica when the first one is down", async () => {
    const dead = await mock();
    const deadUrl = dead.url;
    await dead.close();
    servers.splice(servers.indexOf(dead), 1);
    const live = await mock();
    const { chat } = model({ baseUrls: [deadUrl, live.url] });

    const response = await chat.complete(hello);

    expect(response.endpoint).toBe(live.url);
    expect(live.chatRequests()).toHaveLength(1);
  });
});

describe("cancellation", () => {
  it("stops a hung call when the caller aborts, without retrying", async () => {
    const server = await mock({ faults: [{ type: "hang" }] });
    const { chat } = model({ baseUrl: server.url });
    const controller = new AbortController();

    const pending = chat.complete({ ...hello, signal: controller.signal }).catch((e: unknown) => e);
    while (server.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending;

    expect(ModelAbortedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: false });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("stops waiting in retry back-off when the caller aborts", async () => {
    const server = await mock({ faults: [{ type: "status", status: 500 }] });
    // Real (abortable) sleep with a one-minute back-off: only the abort can end the wait.
    let backingOff = false;
    const chat = createOpenAIChatModel(
      { baseUrl: server.url, model: "mock-model", retryBaseDelayMs: 60_000, retryMaxDelayMs: 60_000 },
      {
        role: "agent",
        random: () => 0.999,
        sleep: (ms, signal) => {
          backingOff = true;
          return abortableSleep(ms, signal);
        },
      },
    );
    const controller = new AbortController();

    const pending = chat.complete({ ...hello, signal: controller.signal }).catch((e: unknown) => e);
    while (!backingOff) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending;

    expect(ModelAbortedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("retry back-off (last failure: ModelHttpError, HTTP 500)");
    expect(server.chatRequests()).toHaveLength(1);
    // The retry was never sent, so it is not counted.
    expect(chat.usage()).toMatchObject({ failedCalls: 1, requests: 1, retries: 0 });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const server = await mock();
    const { chat } = model({ baseUrl: server.url });
    const error = await chat.complete({ ...hello, signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(ModelAbortedError.isInstance(error)).toBe(true);
    expect(server.chatRequests()).toHaveLength(0);
  });
});

describe("response cache", () => {
  it("answers an identical rerun from disk with zero requests", async () => {
    const server = await mock({ reply: ["first", "second"] });
    const dir = await tempDir();
    const request: ChatRequest = { ...hello, sampleKey: "dialogue-1/turn-0/agent" };

    const config = { baseUrl: server.url, model: "mock-model" };

    const first = createOpenAIChatModel(config, { role: "agent", cache: createResponseCache({ dir }) });
    const original = await first.complete(request);
    const rerun = createOpenAIChatModel(config, { role: "agent", cache: createResponseCache({ dir }) });
    const replayed = await rerun.complete(request);

    expect(server.chatRequests()).toHaveLength(1);
    expect(replayed).toMatchObject({ text: original.text, cached: true, endpoint: server.url, usage: original.usage });
    expect(rerun.usage()).toMatchObject({ calls: 0, cachedCalls: 1, requests: 0, promptTokens: 0 });
  });

  it("keeps distinct samples apart by sampleKey and skips requests without one", async () => {
    const server = await mock({ reply: ["a", "b", "c", "d"] });
    const cache = createResponseCache({ dir: await tempDir() });
    const { chat } = model({ baseUrl: server.url }, { cache });

    const one = await chat.complete({ ...hello, sampleKey: "sample-1" });
    const two = await chat.complete({ ...hello, sampleKey: "sample-2" });
    await chat.complete(hello);
    await chat.complete(hello);

    expect([one.text, two.text]).toEqual(["a", "b"]);
    expect(server.chatRequests()).toHaveLength(4);
  });

  it("shares entries across replicas of the same model", async () => {
    const dead = await mock();
    const deadUrl = dead.url;
    await dead.close();
    servers.splice(servers.indexOf(dead), 1);
    const live = await mock();
    const dir = await tempDir();
    const config = { baseUrls: [deadUrl, live.url], model: "mock-model" };
    const request = { ...hello, sampleKey: "s" };

    const first = createOpenAIChatModel(config, { role: "agent", cache: createResponseCache({ dir }) });
    const answered = await first.complete(request); // the first replica is down: served by the second
    const again = createOpenAIChatModel(config, { role: "agent", cache: createResponseCache({ dir }) });
    const replayed = await again.complete(request);

    expect(answered.endpoint).toBe(live.url);
    expect(replayed).toMatchObject({ cached: true, endpoint: live.url, text: answered.text });
    expect(live.chatRequests()).toHaveLength(1);
  });

  it("never caches errors", async () => {
    const server = await mock({ faults: [{ type: "status", status: 400, on: [1] }] });
    const dir = await tempDir();
    const { chat } = model({ baseUrl: server.url }, { cache: createResponseCache({ dir }) });
    const request = { ...hello, sampleKey: "s" };

    await expect(chat.complete(request)).rejects.toSatisfy(ModelCallError.isInstance);
    expect(await readdir(dir).catch(() => [])).toEqual([]);

    const retried = await chat.complete(request);
    expect(retried.cached).toBe(false);
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("never caches empty completions", async () => {
    const server = await mock({ faults: [{ type: "empty-completion", on: [1, 2] }] });
    const dir = await tempDir();
    const { chat } = model({ baseUrl: server.url }, { cache: createResponseCache({ dir }) });
    await expect(chat.complete({ ...hello, sampleKey: "s" })).rejects.toSatisfy(ModelEmptyCompletionError.isInstance);
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });
});

describe("API key handling", () => {
  const SECRET = "sk-secret-123";

  it("sends the key from apiKeyEnv and never puts it in error messages", async () => {
    const server = await mock({ requireApiKey: "the-right-key" });
    const { chat } = model({ baseUrl: server.url, apiKeyEnv: "AEB_TEST_KEY" }, { env: { AEB_TEST_KEY: SECRET } });

    const error = await chat.complete(hello).catch((e: unknown) => e);

    expect(server.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(error).toMatchObject({ status: 401, isRetryable: false });
    // The mock echoes the key it received, like some providers do; it must be redacted.
    expect((error as Error).message).toContain("[REDACTED]");
    expect((error as Error).message).not.toContain(SECRET);
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });

  it("keeps the key out of connection and timeout errors too", async () => {
    const server = await mock({ faults: [{ type: "hang" }] });
    const { chat } = model(
      { baseUrl: server.url, apiKeyEnv: "AEB_TEST_KEY", timeoutMs: 100, maxRetries: 0 },
      { env: { AEB_TEST_KEY: SECRET } },
    );
    const error = await chat.complete(hello).catch((e: unknown) => e);
    expect(ModelTimeoutError.isInstance(error)).toBe(true);
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  });

  it("refuses base URLs with embedded credentials without echoing them", () => {
    const attempt = () => model({ baseUrl: "http://user:hunter2@127.0.0.1:8000/v1" });
    expect(attempt).toThrow(/must not embed credentials/);
    expect(() => attempt()).not.toThrow(/hunter2/);
  });

  it("fails fast, naming the variable, when apiKeyEnv is unset", () => {
    expect(() => model({ baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "AEB_MISSING_KEY" }, { env: {} })).toThrow(
      /AEB_MISSING_KEY.*not set/,
    );
  });

  it("does not forward an ambient OPENAI_API_KEY to endpoints that did not ask for it", async () => {
    const server = await mock();
    const previous = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-ambient-should-not-leak";
    try {
      const { chat } = model({ baseUrl: server.url });
      await chat.complete(hello);
    } finally {
      if (previous === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = previous;
    }
    expect(server.chatRequests()[0]?.headers.authorization).toBe("Bearer EMPTY");
  });
});

describe("createOpenAIChatModel: onCall instrumentation", () => {
  it("reports each finished call with its sampleKey, latency and outcome, cache hits included", async () => {
    const server = await mock({ reply: "Fine.", latency: 20, faults: [{ type: "status", status: 400, on: [2] }] });
    const events: Parameters<NonNullable<OpenAIChatModelOptions["onCall"]>>[0][] = [];
    const cache = createResponseCache({ dir: await tempDir() });
    const { chat } = model({ baseUrl: server.url, maxRetries: 0 }, { cache, onCall: (event) => events.push(event) });
    const first = await chat.complete({ ...hello, sampleKey: "d1#turn0#agent" });
    await expect(chat.complete({ ...hello, sampleKey: "d2#turn0#agent" })).rejects.toThrow();
    await chat.complete({ ...hello, sampleKey: "d1#turn0#agent" });
    expect(events.map(({ role, sampleKey, cached, ok }) => ({ role, sampleKey, cached, ok }))).toEqual([
      { role: "agent", sampleKey: "d1#turn0#agent", cached: false, ok: true },
      { role: "agent", sampleKey: "d2#turn0#agent", cached: false, ok: false },
      { role: "agent", sampleKey: "d1#turn0#agent", cached: true, ok: true },
    ]);
    expect(events[0]!.latencyMs).toBe(first.latencyMs);
    // The server's time comes with the answered call; a cache hit and a failure have none.
    expect(events.map((event) => event.serverMs)).toEqual([20, undefined, undefined]);
  });
});
