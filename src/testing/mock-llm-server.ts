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
import type { AddressInfo } from "node:net";
import type { RandomFn } from "../llm/clock.js";
import { pickFault, type MockFault } from "./mock-llm-faults.js";
import { countWords, errorBody, sendJson, sendPlainCompletion, streamCompletion, type CompletionParts } from "./mock-llm-responses.js";
import { createSeededRandom, logNormalSampler } from "./mock-llm-random.js";

export type { MockFault, MockFaultTrigger } from "./mock-llm-faults.js";

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
  MockReplyValue | readonly MockReplyValue[] | ((request: MockChatRequest) => MockReplyValue | Promise<MockReplyValue>);

/** Fixed delay in ms, or a seeded log-normal distribution (median, sigma). */
export type MockLatency = number | { medianMs: number; sigma: number; seed?: number };

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
  /**
   * When false, requests are not recorded (`requests` stays empty). Default true. `aeb mock-llm`
   * passes false: nothing can read them from outside the process, and a mock answering hundreds of
   * calls a second for minutes would otherwise keep every body it received, the garbage collector
   * scanning them all.
   */
  recordRequests?: boolean;
  /**
   * Work out the reply when the request arrives rather than after the latency. For a reply that is
   * a pure function of the request (the AEB policy, `aeb mock-llm --aeb`) the answer is the same;
   * only the answer, not the parsed request, is then held through the latency, so a mock with a
   * thousand requests waiting copies far less between heap generations. Default false: a reply
   * list cycles, and a reply function runs, in the order the latencies end.
   */
  answerOnArrival?: boolean;
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
  /**
   * Holds every chat request (already received and counted) before it is answered, until
   * `release()`: a client then has nothing in flight but requests the server has counted (used to
   * kill a client at a moment when its accounting must equal the server's).
   */
  hold(): void;
  release(): void;
  /** Destroys open connections (including hung ones) and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_REPLY = "Hello from the mock LLM.";

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
  const recordRequests = options.recordRequests ?? true;
  const answerOnArrival = options.answerOnArrival ?? false;

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
  /** While set, answers wait for it (see `hold`). */
  let holdGate: { promise: Promise<void>; open: () => void } | undefined;

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

  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 * 1024 });

  app.get("/v1/models", async (request, reply) => {
    if (recordRequests) requests.push({ method: request.method, path: "/v1/models", headers: request.headers, body: undefined });
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
    const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const fault = pickFault(faults, n, faultRandom);
    if (recordRequests) {
      const record: MockRecordedRequest = {
        method: request.method,
        path: "/v1/chat/completions",
        headers: request.headers,
        body: request.body,
      };
      if (fault) record.fault = fault.type;
      requests.push(record);
    }

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
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      // Counted now, so that the request's messages need not be kept through the latency.
      const promptWords = messages.reduce((sum, m) => sum + countWords(m.content), 0);
      let pending: MockChatRequest | undefined = { n, model, messages, stream, body };
      let early: Promise<MockReplyObject> | undefined;
      if (answerOnArrival) {
        early = resolveReply(pending);
        pending = undefined;
        // Handled here, thrown below: a failing reply must not be an unhandled rejection while it waits.
        early.catch(() => undefined);
      }

      const latencyMs = latencySample();
      // The server's own time for the request, as OpenAI's API reports it: a client (the
      // benchmark) can tell what the server spent from what its own loop added.
      res.setHeader("openai-processing-ms", String(Math.round(latencyMs)));
      await sleep(latencyMs);
      if (holdGate !== undefined) await holdGate.promise;
      if (closed) return;

      if (fault?.type === "hang") return;
      if (fault?.type === "status") {
        const headers: Record<string, string> = {};
        if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
        const message = fault.message ?? `injected failure (HTTP ${fault.status})`;
        sendJson(res, fault.status, errorBody(message, "mock_fault", fault.status), headers);
        return;
      }

      const answer = early !== undefined ? await early : await resolveReply(pending as MockChatRequest);
      const content = fault?.type === "empty-completion" ? "" : answer.content;
      const reasoning = fault?.type === "empty-completion" ? undefined : answer.reasoning;
      const parts: CompletionParts = {
        id: `chatcmpl-mock-${n}`,
        model,
        content,
        ...(reasoning !== undefined ? { reasoning } : {}),
        reasoningField,
        finishReason: answer.finishReason ?? "stop",
        usage: answer.usage ?? {
          promptTokens: promptWords,
          completionTokens: countWords(content) + countWords(reasoning ?? ""),
        },
      };
      if (!stream) sendPlainCompletion(res, parts, fault);
      else {
        await streamCompletion(res, parts, fault, {
          chunkChars,
          includeUsage,
          sleep: chunkDelayMs > 0 ? () => sleep(chunkDelayMs) : undefined,
          isClosed: () => closed,
          keepTimer: (timer) => timers.set(timer, () => undefined),
          forgetTimer: (timer) => timers.delete(timer),
        });
      }
    } catch (error) {
      if (!res.headersSent) {
        sendJson(res, 500, errorBody(`mock server error: ${(error as Error).message}`, "InternalServerError", 500));
      } else {
        res.destroy();
      }
    }
  });

  function hold(): void {
    if (holdGate !== undefined) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    holdGate = { promise, open };
  }
  function release(): void {
    const gate = holdGate;
    holdGate = undefined;
    gate?.open();
  }

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
    hold,
    release,
    async close() {
      // Idempotent: a test may stop the server mid-run and its cleanup close it again.
      if (closed) return;
      closed = true;
      release();
      for (const [timer, onClose] of timers) {
        clearTimeout(timer);
        onClose();
      }
      timers.clear();
      await app.close();
    },
  };
}
