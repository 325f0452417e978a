/**
 * A mock OpenAI-compatible chat server for tests and for benchmarking the
 * runner without GPUs.
 *
 * Why a real HTTP server rather than a stubbed `fetch`: the failures that
 * matter in long benchmark runs live in the transport (a stream that stalls
 * after its headers, a socket dropped mid-body, a 429 with Retry-After, a
 * connection that never answers). Only a real socket reproduces them the way
 * vLLM, SGLang or a proxy produce them, and the same server doubles as a
 * stand-in endpoint for end-to-end runs (`aeb mock-llm`).
 *
 * Routes: `POST /v1/chat/completions` (streaming SSE and plain JSON) and
 * `GET /v1/models`. Every request is recorded, and the server tracks how many
 * chat requests are in flight, so tests can assert retry counts, request
 * bodies and concurrency limits.
 */
import Fastify, { type FastifyInstance } from "fastify";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RandomFn } from "./clock.js";
import { createSeededRandom, logNormalSampler } from "./seeded-random.js";

/** A reply with extras; a bare string means `{ content }`. */
export interface MockReplyObject {
  content: string;
  /** Reasoning trace sent in the reasoning field (see `reasoningField`). */
  reasoning?: string;
  /** Defaults to "stop". */
  finishReason?: string;
  /** Overrides the word-count usage estimate. */
  usage?: { promptTokens: number; completionTokens: number };
}

export type MockReplyValue = string | MockReplyObject;

/** What a scripted reply function sees. */
export interface MockChatRequest {
  /** 1-based number of this chat request since start (or the last reset). */
  n: number;
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
  /** The raw JSON body, e.g. to inspect `response_format`. */
  body: Record<string, unknown>;
}

/**
 * Scripted replies: one value for every request, a list used in order and
 * cycled, or a function of the request (e.g. a simulated user's JSON).
 */
export type MockReply =
  | MockReplyValue
  | readonly MockReplyValue[]
  | ((request: MockChatRequest) => MockReplyValue | Promise<MockReplyValue>);

/** Fixed delay in ms, or a seeded log-normal distribution (median, sigma). */
export type MockLatency = number | { medianMs: number; sigma: number; seed?: number };

/**
 * When a fault fires: on the listed 1-based chat request numbers, with a
 * probability (seeded), or on every request when neither is given.
 */
export interface MockFaultTrigger {
  on?: readonly number[];
  probability?: number;
}

/** Failure injected into a chat request. The first matching fault wins. */
export type MockFault = MockFaultTrigger &
  (
    | {
        /** Answer with this HTTP status and an OpenAI-style error body. */
        type: "status";
        status: number;
        message?: string;
        /** Sent as the Retry-After header: seconds, or an HTTP date string. */
        retryAfter?: number | string;
      }
    | {
        /** Accept the request and never answer (no headers, no body). */
        type: "hang";
      }
    | {
        /** Send 200 headers (and `afterChunks` stream chunks), then go silent forever. */
        type: "stall-after-headers";
        afterChunks?: number;
        /** Send SSE comment lines at this interval while stalled (keeps sockets busy, carries no data). */
        keepAliveMs?: number;
      }
    | {
        /** Send `afterChunks` chunks (default 2), then destroy the socket. */
        type: "drop-mid-stream";
        afterChunks?: number;
      }
    | {
        /** End the body cleanly after `afterChunks` chunks (default 2): no finish reason, no [DONE]. */
        type: "truncated-stream";
        afterChunks?: number;
      }
    | {
        /**
         * After `afterChunks` chunks (default 1), send an in-stream `{"error": ...}`
         * event and end, as vLLM does on engine errors (plain JSON: an HTTP error).
         */
        type: "error-event";
        afterChunks?: number;
        /** Code carried in the error object (default 500). */
        code?: number;
        message?: string;
      }
    | {
        /** Answer normally but with empty content. */
        type: "empty-completion";
      }
  );

export interface MockLlmServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Model names served; requests for others get 404 as vLLM does. Default ["mock-model"]. */
  models?: readonly string[];
  /** Default "Hello from the mock LLM." */
  reply?: MockReply;
  /** Reasoning for every reply that does not set its own. */
  reasoning?: string;
  /** Field carrying reasoning: vLLM/DeepSeek `reasoning_content` (default) or `reasoning`. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Delay before the response starts. Default 0. */
  latency?: MockLatency;
  /** Characters of text per stream chunk. Default 8. */
  chunkChars?: number;
  /** Delay between stream chunks in ms. Default 0. */
  chunkDelayMs?: number;
  faults?: readonly MockFault[];
  /** Seed for probabilistic faults. Default 1. */
  seed?: number;
  /** When false, `GET /v1/models` answers 404 (some proxies do not serve it). Default true. */
  servesModels?: boolean;
  /**
   * When set, requests must carry `Authorization: Bearer <key>`; otherwise 401
   * with a message that echoes the key received, as some providers do, so
   * tests can check that clients redact it.
   */
  requireApiKey?: string;
}

/** One recorded HTTP request. */
export interface MockRecordedRequest {
  method: string;
  /** Path without query, e.g. "/v1/chat/completions". */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Type of the fault injected into this request, if any. */
  fault?: MockFault["type"];
}

export interface MockLlmServer {
  /** Base URL to give clients, ending in `/v1`. */
  url: string;
  server: FastifyInstance;
  /** Every request received, in arrival order (cleared in place by `reset`). */
  requests: MockRecordedRequest[];
  /** Only the chat-completion requests. */
  chatRequests(): MockRecordedRequest[];
  /** Chat requests currently being answered. */
  readonly inFlight: number;
  /** Highest number of chat requests in flight at once since start or reset. */
  readonly maxConcurrent: number;
  /** Forgets recorded requests and restarts reply cycling, numbering and the fault RNG. */
  reset(): void;
  /** Destroys open connections (including hung ones) and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_REPLY = "Hello from the mock LLM.";

/** Rough token count: whitespace-separated words. Good enough for accounting tests. */
function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null ? String((part as { text?: unknown }).text ?? "") : ""))
      .join("");
  }
  return "";
}

/** Starts a mock server listening on `host:port` (ephemeral port by default). */
export async function startMockLlmServer(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const models = options.models ?? ["mock-model"];
  const chunkChars = Math.max(1, options.chunkChars ?? 8);
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const faults = options.faults ?? [];
  const reasoningField = options.reasoningField ?? "reasoning_content";
  const servesModels = options.servesModels ?? true;

  const requests: MockRecordedRequest[] = [];
  /** Pending timers and what to run if the server closes first (so no handler is left suspended). */
  const timers = new Map<NodeJS.Timeout, () => void>();
  let chatCount = 0;
  let cycleIndex = 0;
  let inFlight = 0;
  let maxConcurrent = 0;
  let faultRandom: RandomFn = createSeededRandom(options.seed ?? 1);
  let latencySample = makeLatencySampler(options.latency);
  let closed = false;

  function makeLatencySampler(latency: MockLatency | undefined): () => number {
    if (latency === undefined) return () => 0;
    if (typeof latency === "number") return () => latency;
    return logNormalSampler(latency.medianMs, latency.sigma, createSeededRandom(latency.seed ?? 1));
  }

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0) {
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.set(timer, resolve);
    });

  function pickFault(n: number): MockFault | undefined {
    for (const fault of faults) {
      if (fault.on !== undefined) {
        if (fault.on.includes(n)) return fault;
        continue;
      }
      if (fault.probability !== undefined) {
        if (faultRandom() < fault.probability) return fault;
        continue;
      }
      return fault;
    }
    return undefined;
  }

  async function resolveReply(request: MockChatRequest): Promise<MockReplyObject> {
    const script = options.reply ?? DEFAULT_REPLY;
    let value: MockReplyValue;
    if (typeof script === "function") {
      value = await script(request);
    } else if (Array.isArray(script)) {
      const list = script as readonly MockReplyValue[];
      if (list.length === 0) throw new Error("mock reply list is empty");
      value = list[cycleIndex % list.length] as MockReplyValue;
      cycleIndex++;
    } else {
      value = script as MockReplyValue;
    }
    const reply = typeof value === "string" ? { content: value } : { ...value };
    if (reply.reasoning === undefined && options.reasoning !== undefined) reply.reasoning = options.reasoning;
    return reply;
  }

  function authFailure(header: string | undefined): string | undefined {
    if (options.requireApiKey === undefined) return undefined;
    if (header === `Bearer ${options.requireApiKey}`) return undefined;
    const provided = header?.replace(/^Bearer\s+/i, "") ?? "(none)";
    return `Incorrect API key provided: ${provided}.`;
  }

  function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    const payload = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
      ...headers,
    });
    res.end(payload);
  }

  function errorBody(message: string, type: string, code: number | string): unknown {
    return { error: { message, type, param: null, code } };
  }

  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 * 1024 });

  app.get("/v1/models", async (request, reply) => {
    requests.push({ method: request.method, path: "/v1/models", headers: request.headers, body: undefined });
    const authError = authFailure(request.headers.authorization);
    if (authError !== undefined) {
      return reply.code(401).send(errorBody(authError, "invalid_request_error", "invalid_api_key"));
    }
    if (!servesModels) return reply.code(404).send(errorBody("Not Found", "NotFoundError", 404));
    return {
      object: "list",
      data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "aeb-mock" })),
    };
  });

  app.post("/v1/chat/completions", async (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.on("error", () => undefined);
    inFlight++;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    res.on("close", () => {
      inFlight--;
    });

    const n = ++chatCount;
    const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;
    const fault = pickFault(n);
    const record: MockRecordedRequest = {
      method: request.method,
      path: "/v1/chat/completions",
      headers: request.headers,
      body: request.body,
    };
    if (fault) record.fault = fault.type;
    requests.push(record);

    try {
      const authError = authFailure(request.headers.authorization);
      if (authError !== undefined) {
        sendJson(res, 401, errorBody(authError, "invalid_request_error", "invalid_api_key"));
        return;
      }
      const model = typeof body.model === "string" ? body.model : "";
      if (!Array.isArray(body.messages)) {
        sendJson(res, 400, errorBody("'messages' must be a list", "BadRequestError", 400));
        return;
      }
      if (!models.includes(model)) {
        sendJson(res, 404, errorBody(`The model \`${model}\` does not exist.`, "NotFoundError", 404));
        return;
      }
      const messages = (body.messages as unknown[]).map((m) => {
        const message = (typeof m === "object" && m !== null ? m : {}) as { role?: unknown; content?: unknown };
        return { role: String(message.role ?? ""), content: messageText(message.content) };
      });
      const stream = body.stream === true;

      await sleep(latencySample());
      if (closed) return;

      if (fault?.type === "hang") return;
      if (fault?.type === "status") {
        const headers: Record<string, string> = {};
        if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
        const message = fault.message ?? `injected failure (HTTP ${fault.status})`;
        sendJson(res, fault.status, errorBody(message, "mock_fault", fault.status), headers);
        return;
      }

      const answer = await resolveReply({ n, model, messages, stream, body });
      const content = fault?.type === "empty-completion" ? "" : answer.content;
      const reasoning = fault?.type === "empty-completion" ? undefined : answer.reasoning;
      const finishReason = answer.finishReason ?? "stop";
      const usage = answer.usage ?? {
        promptTokens: messages.reduce((sum, m) => sum + countWords(m.content), 0),
        completionTokens: countWords(content) + countWords(reasoning ?? ""),
      };
      const created = Math.floor(Date.now() / 1000);
      const id = `chatcmpl-mock-${n}`;
      const usageBody = {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      };

      if (!stream) {
        if (fault?.type === "stall-after-headers") {
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
          return;
        }
        const message: Record<string, unknown> = { role: "assistant", content };
        if (reasoning !== undefined) message[reasoningField] = reasoning;
        const completion = {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
          usage: usageBody,
        };
        if (fault?.type === "error-event") {
          const code = fault.code ?? 500;
          sendJson(res, code, errorBody(fault.message ?? `injected engine error (${code})`, "mock_fault", code));
          return;
        }
        if (fault?.type === "drop-mid-stream" || fault?.type === "truncated-stream") {
          const payload = JSON.stringify(completion);
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
          res.write(payload.slice(0, Math.floor(payload.length / 2)));
          res.destroy();
          return;
        }
        sendJson(res, 200, completion);
        return;
      }

      const base = { id, object: "chat.completion.chunk", created, model };
      const chunks: unknown[] = [
        { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
      ];
      for (const piece of splitText(reasoning ?? "", chunkChars)) {
        chunks.push({ ...base, choices: [{ index: 0, delta: { [reasoningField]: piece }, finish_reason: null }] });
      }
      for (const piece of splitText(content, chunkChars)) {
        chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      }
      chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
      const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
      if (streamOptions?.include_usage === true) chunks.push({ ...base, choices: [], usage: usageBody });

      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      res.flushHeaders();

      for (let i = 0; i <= chunks.length; i++) {
        if (closed || res.destroyed) return;
        if (fault?.type === "stall-after-headers" && i === (fault.afterChunks ?? 0)) {
          const everyMs = fault.keepAliveMs;
          if (everyMs !== undefined && everyMs > 0) {
            const timer = setInterval(() => {
              if (res.destroyed) clearInterval(timer);
              else res.write(": keep-alive\n\n");
            }, everyMs);
            timers.set(timer, () => undefined);
            res.on("close", () => {
              clearInterval(timer);
              timers.delete(timer);
            });
          }
          return;
        }
        if (fault?.type === "drop-mid-stream" && i === (fault.afterChunks ?? 2)) {
          res.destroy();
          return;
        }
        if (fault?.type === "error-event" && i === (fault.afterChunks ?? 1)) {
          const code = fault.code ?? 500;
          const error = { message: fault.message ?? `injected engine error (${code})`, type: "mock_fault", code };
          res.end(`data: ${JSON.stringify({ error })}\n\n`);
          return;
        }
        if (fault?.type === "truncated-stream" && i === (fault.afterChunks ?? 2)) {
          res.end();
          return;
        }
        if (i === chunks.length) break;
        res.write(`data: ${JSON.stringify(chunks[i])}\n\n`);
        if (chunkDelayMs > 0) await sleep(chunkDelayMs);
      }
      res.end("data: [DONE]\n\n");
    } catch (error) {
      if (!res.headersSent) {
        sendJson(res, 500, errorBody(`mock server error: ${(error as Error).message}`, "InternalServerError", 500));
      } else {
        res.destroy();
      }
    }
  });

  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const port = (app.server.address() as AddressInfo).port;
  const hostForUrl = host.includes(":") ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${port}/v1`;

  return {
    url,
    server: app,
    requests,
    chatRequests: () => requests.filter((r) => r.path === "/v1/chat/completions"),
    get inFlight() {
      return inFlight;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    reset() {
      requests.length = 0;
      chatCount = 0;
      cycleIndex = 0;
      maxConcurrent = inFlight;
      faultRandom = createSeededRandom(options.seed ?? 1);
      latencySample = makeLatencySampler(options.latency);
    },
    async close() {
      closed = true;
      for (const [timer, onClose] of timers) {
        clearTimeout(timer);
        onClose();
      }
      timers.clear();
      await app.close();
    },
  };
}
