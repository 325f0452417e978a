/**
 * The production {@link ChatModel}: the official `openai` SDK talking to any
 * OpenAI-compatible server (vLLM, SGLang, Ollama, OpenAI...), with the
 * robustness long benchmark runs need.
 *
 * What it adds on top of the SDK, and why:
 * - Replicas: one SDK client per base URL; each attempt goes to the replica
 *   with the fewest in-flight requests, within a per-replica concurrency cap
 *   (see {@link ReplicaPool}). A retry prefers a different replica.
 * - Retries (SDK retries are off): 408/409/429/5xx, timeouts, connection
 *   failures, truncated streams and in-stream server errors, with full-jitter
 *   exponential back-off or the server's Retry-After, capped
 *   (see retry-policy.ts). Other 4xx fail at once.
 * - Timeouts of our own: the SDK's `timeout` only covers the wait for
 *   response headers; a server that sends headers and then stalls would hang
 *   a run forever. `timeoutMs` bounds the whole attempt, body included. With
 *   `stream: true` an idle timer also sees every chunk: no headers or chunk
 *   for `idleTimeoutMs` aborts the attempt with a retryable timeout. SSE
 *   keep-alive comments do not count as progress. If the stream already
 *   delivered its finish reason and then merely lingers before closing, the
 *   reply is accepted. Without streaming (the default, half the CPU per
 *   call) the reply is one JSON body read through undici (undici-fetch.ts).
 * - Empty completions are errors, retried ONCE: a sampled model occasionally
 *   emits nothing (often an EOS right after a reasoning block), and one
 *   resample usually fixes it; repeating more just burns GPU time on a
 *   deterministic failure (same seed, temperature 0). When the finish reason
 *   is "length" (the budget went to reasoning) it is not retried at all.
 * - Cache: with a {@link ResponseCache} and a `sampleKey`, identical calls
 *   are answered from disk without any request.
 * - Accounting: `usage()` totals tokens of successful non-cached calls, plus
 *   counts of requests, retries, cache hits and failures.
 * - Secrets: the API key comes from the env var named in the config, is sent
 *   only to the configured endpoints and is redacted from every error.
 */
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { ChatModel, ChatRequest, ChatResponse, ModelCallEvent, UsageTotals } from "./chat-model.js";
import { abortableSleep, systemClock, type Clock, type RandomFn, type SleepFn } from "./clock.js";
import { ModelEndpointConfig, type ModelEndpointConfigInput } from "./endpoint-config.js";
import {
  ModelAbortedError,
  ModelCallError,
  ModelEmptyCompletionError,
  ModelHttpError,
  ModelIncompleteStreamError,
  ModelResponseError,
} from "./errors.js";
import { mapOpenAIError, type AbortReason, type ErrorContext } from "./openai-error-mapping.js";
import { displayEndpoint } from "./redaction.js";
import { ReplicaPool, type ReplicaLease } from "./replica-pool.js";
import { buildChatCompletionBody, effectiveParams } from "./request-body.js";
import { responseCacheKey, type ResponseCache } from "./response-cache.js";
import { retryDelayMs } from "./retry-policy.js";
import { createSdkClient, resolveApiKey, type FetchFn } from "./sdk-client.js";

export interface OpenAIChatModelOptions {
  /** Role served by this client ("agent", "user-sim", "judge"...): shown in errors and usage. */
  role: string;
  /** Optional response cache; only requests with a sampleKey use it. */
  cache?: ResponseCache | undefined;
  /** Custom fetch (tests, proxies). Defaults to the global fetch. */
  fetch?: FetchFn | undefined;
  /** Time source for latency and HTTP-date Retry-After. */
  clock?: Clock | undefined;
  /** Back-off wait; inject a recorder in tests to assert waits without waiting. */
  sleep?: SleepFn | undefined;
  /** Jitter source in [0, 1). */
  random?: RandomFn | undefined;
  /** Where `apiKeyEnv` is looked up. Defaults to process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * Awaited once before the first request that reaches the network (after a cache miss); if it
   * rejects, every call rejects with its error. Runs use it for a lazy preflight, so a fully
   * cached rerun sends no request at all while a bad endpoint still fails on first use.
   */
  beforeFirstRequest?: (() => Promise<void>) | undefined;
  /**
   * Called once per finished call (success, cache hit or failure) with its client-observed
   * latency; for instrumentation only, it must not throw.
   */
  onCall?: ((event: ModelCallEvent) => void) | undefined;
}

/** One SDK client bound to one base URL. */
interface Replica {
  /** Display form: no credentials, no query. */
  endpoint: string;
  client: OpenAI;
}

/** What every error of one client names (see ModelCallError). */
interface ErrorBase {
  endpoint: string;
  model: string;
  role: string;
  secrets: readonly string[];
}

/** The abort switch of one attempt, shared by both transports. */
interface AttemptControl {
  controller: AbortController;
  abort(why: AbortReason): void;
  /** Why the attempt was aborted by us or the caller, if it was. */
  reason(): AbortReason | undefined;
}

/** A finished attempt before it is turned into a ChatResponse. */
interface AttemptResult {
  text: string;
  reasoning: string;
  finishReason: string | null;
  promptTokens: number;
  completionTokens: number;
}

/** Creates a chat model client for `config` (validated and defaulted here). */
export function createOpenAIChatModel(
  config: ModelEndpointConfigInput | ModelEndpointConfig,
  options: OpenAIChatModelOptions,
): OpenAIChatModel {
  return new OpenAIChatModel(ModelEndpointConfig.parse(config), options);
}

export class OpenAIChatModel implements ChatModel {
  readonly id: string;
  readonly role: string;
  readonly config: ModelEndpointConfig;
  /** Base URLs in display form (credentials stripped), in config order. */
  readonly endpoints: readonly string[];

  readonly #pool: ReplicaPool<Replica>;
  readonly #cache: ResponseCache | undefined;
  readonly #beforeFirstRequest: (() => Promise<void>) | undefined;
  readonly #onCall: ((event: ModelCallEvent) => void) | undefined;
  #ready: Promise<void> | undefined;
  readonly #clock: Clock;
  readonly #sleep: SleepFn;
  readonly #random: RandomFn;
  readonly #secrets: readonly string[];
  readonly #totals: UsageTotals;

  constructor(config: ModelEndpointConfig, options: OpenAIChatModelOptions) {
    this.config = config;
    this.id = config.model;
    this.role = options.role;
    this.endpoints = config.baseUrls.map(displayEndpoint);
    const { apiKey, secrets } = resolveApiKey(config, options.env);
    this.#secrets = secrets;
    const replicas = config.baseUrls.map((baseUrl) => ({
      endpoint: displayEndpoint(baseUrl),
      client: createSdkClient({ baseUrl, apiKey, timeoutMs: config.timeoutMs, fetch: options.fetch }),
    }));
    this.#pool = new ReplicaPool(replicas, config.maxConcurrencyPerEndpoint);
    this.#cache = options.cache;
    this.#beforeFirstRequest = options.beforeFirstRequest;
    this.#onCall = options.onCall;
    this.#clock = options.clock ?? systemClock;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
    this.#totals = {
      model: config.model,
      role: options.role,
      calls: 0,
      cachedCalls: 0,
      failedCalls: 0,
      requests: 0,
      retries: 0,
      promptTokens: 0,
      completionTokens: 0,
    };
  }

  /** A snapshot of this client's totals. */
  usage(): UsageTotals {
    return { ...this.#totals };
  }

  /** In-flight requests per replica, in config order (for progress displays). */
  inFlight(): number[] {
    return this.#pool.inFlight();
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const onCall = this.#onCall;
    if (onCall === undefined) return this.#complete(request);
    const started = this.#clock.now();
    let response: ChatResponse;
    try {
      response = await this.#complete(request);
    } catch (error) {
      onCall({ role: this.role, sampleKey: request.sampleKey, latencyMs: this.#clock.now() - started, cached: false, ok: false });
      throw error;
    }
    onCall({ role: this.role, sampleKey: request.sampleKey, latencyMs: response.latencyMs, cached: response.cached, ok: true });
    return response;
  }

  async #complete(request: ChatRequest): Promise<ChatResponse> {
    const started = this.#clock.now();
    const { signal } = request;
    const everywhere = this.#errorBase(this.endpoints.join(", "));
    if (signal?.aborted) {
      this.#totals.failedCalls++;
      throw new ModelAbortedError("call cancelled before it started", everywhere);
    }

    const params = effectiveParams(this.config, request);
    const body = buildChatCompletionBody(this.config, request, params);
    const cacheKey =
      this.#cache !== undefined && request.sampleKey !== undefined
        ? responseCacheKey({
            baseUrl: this.endpoints[0] ?? "",
            model: this.config.model,
            messages: request.messages,
            params: { ...params },
            jsonSchema: request.jsonSchema,
            sampleKey: request.sampleKey,
          })
        : undefined;

    if (cacheKey !== undefined && this.#cache !== undefined) {
      const hit = await this.#cache.get(cacheKey);
      if (hit !== undefined) {
        this.#totals.cachedCalls++;
        const response: ChatResponse = {
          text: hit.text,
          usage: { ...hit.usage },
          finishReason: hit.finishReason,
          cached: true,
          latencyMs: this.#clock.now() - started,
          endpoint: hit.endpoint,
        };
        if (hit.reasoning !== undefined) response.reasoning = hit.reasoning;
        return response;
      }
    }

    if (this.#beforeFirstRequest !== undefined) {
      this.#ready ??= this.#beforeFirstRequest();
      try {
        await this.#ready;
      } catch (error) {
        this.#totals.failedCalls++;
        throw error;
      }
    }

    let retries = 0;
    let emptyRetried = false;
    let avoid: number | undefined;
    for (;;) {
      let lease: ReplicaLease<Replica>;
      try {
        lease = await this.#pool.acquire({ avoid, signal });
      } catch {
        this.#totals.failedCalls++;
        throw new ModelAbortedError("call cancelled while waiting for a free slot", everywhere).markExhausted(
          retries + 1,
        );
      }

      this.#totals.requests++;
      let outcome: { ok: true; result: AttemptResult } | { ok: false; error: ModelCallError };
      try {
        outcome = { ok: true, result: await this.#attempt(lease.replica, body, signal) };
      } catch (thrown) {
        const error = ModelCallError.isInstance(thrown)
          ? thrown
          : mapOpenAIError(thrown, this.#errorContext(lease.replica.endpoint));
        outcome = { ok: false, error };
      } finally {
        lease.release();
      }

      if (!outcome.ok) {
        const { error } = outcome;
        const isEmpty = ModelEmptyCompletionError.isInstance(error);
        const mayRetry = error.isRetryable && retries < this.config.maxRetries && !(isEmpty && emptyRetried);
        if (!mayRetry) {
          this.#totals.failedCalls++;
          throw error.markExhausted(retries + 1);
        }
        if (isEmpty) emptyRetried = true;
        const delay = retryDelayMs(
          retries,
          ModelHttpError.isInstance(error) ? error.retryAfterMs : undefined,
          this.config,
          this.#random,
        );
        retries++;
        this.#totals.retries++;
        avoid = lease.index;
        try {
          await this.#sleep(delay, signal);
        } catch {
          this.#totals.failedCalls++;
          const last = error.status !== undefined ? `${error.name}, HTTP ${error.status}` : error.name;
          throw new ModelAbortedError(
            `call cancelled during retry back-off (last failure: ${last})`,
            this.#errorBase(lease.replica.endpoint),
          ).markExhausted(retries);
        }
        if (signal?.aborted) {
          this.#totals.failedCalls++;
          throw new ModelAbortedError("call cancelled during retry back-off", everywhere).markExhausted(retries);
        }
        continue;
      }

      const { result } = outcome;
      this.#totals.calls++;
      this.#totals.promptTokens += result.promptTokens;
      this.#totals.completionTokens += result.completionTokens;
      const response: ChatResponse = {
        text: result.text,
        usage: { promptTokens: result.promptTokens, completionTokens: result.completionTokens },
        finishReason: result.finishReason,
        cached: false,
        latencyMs: this.#clock.now() - started,
        endpoint: lease.replica.endpoint,
      };
      if (result.reasoning !== "") response.reasoning = result.reasoning;
      if (cacheKey !== undefined && this.#cache !== undefined) {
        await this.#cache.set(cacheKey, {
          text: response.text,
          ...(response.reasoning !== undefined ? { reasoning: response.reasoning } : {}),
          usage: response.usage,
          finishReason: response.finishReason,
          endpoint: response.endpoint,
          model: this.config.model,
        });
      }
      return response;
    }
  }

  /**
   * One request to one replica, bounded by the total timer (and, when
   * streaming, the idle timer). Always throws a ModelCallError on failure.
   */
  async #attempt(
    replica: Replica,
    body: ReturnType<typeof buildChatCompletionBody>,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    const controller = new AbortController();
    let reason: AbortReason | undefined;
    const abort = (why: AbortReason): void => {
      if (reason !== undefined) return;
      reason = why;
      controller.abort();
    };
    const onCallerAbort = (): void => abort("user");
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    if (signal?.aborted) abort("user");
    const totalTimer = setTimeout(() => abort("total"), this.config.timeoutMs);
    const attempt = { controller, abort, reason: () => reason };
    try {
      return body.stream === true
        ? await this.#streamedAttempt(replica, body, attempt)
        : await this.#plainAttempt(replica, body, attempt);
    } finally {
      clearTimeout(totalTimer);
      signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  /** One JSON reply: nothing arrives until the server is done, so only the total timer applies. */
  async #plainAttempt(replica: Replica, body: ChatCompletionCreateParamsNonStreaming, attempt: AttemptControl): Promise<AttemptResult> {
    let completion: unknown;
    try {
      completion = await replica.client.chat.completions.create(body, {
        signal: attempt.controller.signal,
        timeout: this.config.timeoutMs,
      });
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(replica.endpoint), attempt.reason());
    }
    const reason = attempt.reason();
    if (reason !== undefined) throw mapOpenAIError(undefined, this.#errorContext(replica.endpoint), reason);
    const context = this.#errorBase(replica.endpoint);
    // A 200 whose body is not a chat completion (an HTML error page, a proxy's text) arrives as a
    // string or an object without choices: a server fault worth one more try.
    const choice = (completion as Partial<ChatCompletion> | null)?.choices?.[0];
    if (typeof completion !== "object" || completion === null || choice === undefined) {
      throw new ModelResponseError("response is not a chat completion (no choices)", { ...context, isRetryable: true });
    }
    const message = (choice.message ?? {}) as unknown as Record<string, unknown>;
    const text = typeof message.content === "string" ? message.content : "";
    // vLLM / DeepSeek / SGLang use `reasoning_content`; OpenRouter and newer vLLM use `reasoning`.
    const reasoning =
      typeof message.reasoning_content === "string"
        ? message.reasoning_content
        : typeof message.reasoning === "string"
          ? message.reasoning
          : "";
    const finishReason = choice.finish_reason ?? null;
    const usage = (completion as Partial<ChatCompletion>).usage;
    return this.#checkedResult(context, {
      text,
      reasoning,
      finishReason,
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
    });
  }

  /** One streamed reply: every chunk re-arms the idle timer. */
  async #streamedAttempt(replica: Replica, body: ChatCompletionCreateParamsStreaming, attempt: AttemptControl): Promise<AttemptResult> {
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = (): void => {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => attempt.abort("idle"), this.config.idleTimeoutMs);
    };

    let text = "";
    let reasoning = "";
    let finishReason: string | null = null;
    let promptTokens = 0;
    let completionTokens = 0;
    /** A stream that already delivered its finish reason is complete even if the socket then lingers. */
    const finishedBeforeAbort = (): boolean => {
      const reason = attempt.reason();
      return finishReason !== null && reason !== undefined && reason !== "user";
    };

    touch();
    try {
      const stream = await replica.client.chat.completions.create(body, {
        signal: attempt.controller.signal,
        timeout: this.config.timeoutMs,
      });
      touch();
      for await (const chunk of stream) {
        touch();
        if (chunk.usage) {
          promptTokens = chunk.usage.prompt_tokens ?? 0;
          completionTokens = chunk.usage.completion_tokens ?? 0;
        }
        const choice = chunk.choices?.[0];
        if (choice === undefined) continue;
        const delta = (choice.delta ?? {}) as Record<string, unknown>;
        if (typeof delta.content === "string") text += delta.content;
        // vLLM / DeepSeek / SGLang use `reasoning_content`; OpenRouter and newer vLLM use `reasoning`.
        if (typeof delta.reasoning_content === "string") reasoning += delta.reasoning_content;
        else if (typeof delta.reasoning === "string") reasoning += delta.reasoning;
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (error) {
      if (!finishedBeforeAbort()) throw mapOpenAIError(error, this.#errorContext(replica.endpoint), attempt.reason());
    } finally {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
    }

    const context = this.#errorBase(replica.endpoint);
    // The SDK ends iteration silently when its signal aborts, so our own reason decides.
    const reason = attempt.reason();
    if (reason !== undefined && !finishedBeforeAbort()) {
      throw mapOpenAIError(undefined, this.#errorContext(replica.endpoint), reason);
    }
    if (finishReason === null) {
      throw new ModelIncompleteStreamError("stream ended without a finish reason (reply probably truncated)", context);
    }
    return this.#checkedResult(context, { text, reasoning, finishReason, promptTokens, completionTokens });
  }

  /** Rules shared by both transports: a reply needs a finish reason and some text. */
  #checkedResult(context: ErrorBase, result: AttemptResult): AttemptResult {
    if (result.finishReason === null) {
      throw new ModelResponseError("reply has no finish reason (probably truncated)", { ...context, isRetryable: true });
    }
    if (result.text.trim() === "") {
      throw new ModelEmptyCompletionError(`empty completion (finish reason "${result.finishReason}")`, {
        ...context,
        finishReason: result.finishReason,
      });
    }
    return result;
  }

  #errorBase(endpoint: string): ErrorBase {
    return { endpoint, model: this.config.model, role: this.role, secrets: this.#secrets };
  }

  #errorContext(endpoint: string): ErrorContext {
    return {
      ...this.#errorBase(endpoint),
      nowMs: this.#clock.now(),
      timeoutMs: this.config.timeoutMs,
      idleTimeoutMs: this.config.idleTimeoutMs,
    };
  }
}
