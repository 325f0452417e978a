/**
 * The production {@link ChatModel}: the official `openai` SDK talking to any
 * OpenAI-compatible server (vLLM, SGLang, Ollama, OpenAI...), with the
 * robustness long benchmark runs need.
 *
 * It is built in layers, each in its own file:
 * - accounting (here): `usage()` totals tokens of successful non-cached calls, plus counts of
 *   requests, retries, cache hits and failures; every request and call is also reported to an
 *   optional usage sink (a run directory's usage log) as it happens, and to the `onCall` hook;
 * - cache (here, over response-cache.ts): with a {@link ResponseCache} and a `sampleKey`,
 *   identical calls are answered from disk without any request;
 * - preflight (here): `beforeFirstRequest` runs once before the first request that reaches the
 *   network;
 * - retries, replicas and the circuit breaker (retrying-call.ts, replica-pool.ts,
 *   circuit-breaker.ts, retry-policy.ts): SDK retries are off, ours know about replicas,
 *   Retry-After caps and outages;
 * - one attempt on one replica (openai-attempt.ts): the SDK call, with timers of our own.
 * Secrets: the API key comes from the env var named in the config, is sent only to the configured
 * endpoints and is redacted from every error.
 */
import type { ChatModel, ChatRequest, ChatResponse, ModelCallEvent, UsageSink, UsageTotals } from "./chat-model.js";
import { CircuitBreaker, type BreakerEvents } from "./circuit-breaker.js";
import { abortableSleep, systemClock, type Clock, type RandomFn, type SleepFn } from "./clock.js";
import { DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT, ModelEndpointConfig, type ModelEndpointConfigInput } from "./endpoint-config.js";
import { completionTarget, type CompletionTarget } from "./direct-completion.js";
import { ModelAbortedError } from "./errors.js";
import { attemptCompletion, type AttemptResult, type ChatCompletionBody, type Replica } from "./openai-attempt.js";
import { mapOpenAIError, type ErrorContext } from "./openai-error-mapping.js";
import { displayEndpoint } from "./redaction.js";
import { ReplicaPool } from "./replica-pool.js";
import { buildChatCompletionBody, effectiveParams } from "./request-body.js";
import { responseCacheKey, type ResponseCache } from "./response-cache.js";
import { callWithRetries } from "./retrying-call.js";
import { createSdkClient, resolveApiKey, type FetchFn } from "./sdk-client.js";
import { sharedModelAgent } from "./undici-fetch.js";

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
  /**
   * Called each time a call has to wait for a free slot under `maxConcurrencyPerEndpoint` (with
   * how many wait then): the cap, not the server, is what holds it. For instrumentation only.
   */
  onQueued?: ((queued: number) => void) | undefined;
  /** Where every request and call is recorded as it happens (a run directory's usage log). */
  usage?: UsageSink | undefined;
  /** Told when the endpoint's circuit breaker opens (calls start waiting) and closes again. */
  breaker?: BreakerEvents | undefined;
}

/** What every error of one client names (see ModelCallError). */
interface ErrorBase {
  endpoint: string;
  model: string;
  role: string;
  secrets: readonly string[];
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
  readonly #usage: UsageSink | undefined;
  readonly #breaker: CircuitBreaker;

  constructor(config: ModelEndpointConfig, options: OpenAIChatModelOptions) {
    this.config = config;
    this.id = config.model;
    this.role = options.role;
    this.endpoints = config.baseUrls.map(displayEndpoint);
    const { apiKey, secrets } = resolveApiKey(config, options.env);
    this.#secrets = secrets;
    const replicas = config.baseUrls.map((baseUrl): Replica => {
      const client = createSdkClient({ baseUrl, apiKey, timeoutMs: config.timeoutMs, fetch: options.fetch });
      if (options.fetch !== undefined) return { endpoint: displayEndpoint(baseUrl), client };
      // Plain completions skip the SDK's per-call machinery (direct-completion.ts); its URL and headers are computed once.
      let target: Promise<CompletionTarget> | undefined;
      const direct = { target: () => (target ??= completionTarget(client, config.timeoutMs)), dispatcher: sharedModelAgent() };
      return { endpoint: displayEndpoint(baseUrl), client, direct };
    });
    this.#pool = new ReplicaPool(
      replicas,
      config.maxConcurrencyPerEndpoint ?? DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT,
      options.onQueued !== undefined ? { onWait: options.onQueued } : {},
    );
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
    this.#usage = options.usage;
    this.#usage?.record({ event: "model", role: this.role, model: config.model });
    this.#breaker = new CircuitBreaker(
      config.circuitBreaker,
      this.#clock,
      this.#sleep,
      this.#errorBase(this.endpoints.join(", ")),
      options.breaker,
    );
  }

  /** Counts a request about to be sent, in the totals and the usage record. */
  #countRequest(retry: boolean): void {
    this.#totals.requests++;
    if (retry) this.#totals.retries++;
    this.#usage?.record({ event: "request", role: this.role, model: this.config.model, retry });
  }

  /** Counts an ended call, in the totals and the usage record. */
  #countCall(outcome: "answered" | "cached" | "failed", promptTokens = 0, completionTokens = 0): void {
    if (outcome === "answered") {
      this.#totals.calls++;
      this.#totals.promptTokens += promptTokens;
      this.#totals.completionTokens += completionTokens;
    } else if (outcome === "cached") this.#totals.cachedCalls++;
    else this.#totals.failedCalls++;
    this.#usage?.record({ event: "call", role: this.role, model: this.config.model, outcome, promptTokens, completionTokens });
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
    onCall({
      role: this.role,
      sampleKey: request.sampleKey,
      latencyMs: response.latencyMs,
      ...(response.serverMs !== undefined ? { serverMs: response.serverMs } : {}),
      cached: response.cached,
      ok: true,
    });
    return response;
  }

  /** The cache and preflight layers; any failure is counted once, here. */
  async #complete(request: ChatRequest): Promise<ChatResponse> {
    const started = this.#clock.now();
    const { signal } = request;
    if (signal?.aborted) {
      this.#countCall("failed");
      throw new ModelAbortedError("call cancelled before it started", this.#errorBase(this.endpoints.join(", ")));
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
        this.#countCall("cached");
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

    let answered: { result: AttemptResult; replica: Replica };
    try {
      if (this.#beforeFirstRequest !== undefined) {
        this.#ready ??= this.#beforeFirstRequest();
        await this.#ready;
      }
      answered = await this.#withRetries(body, signal);
    } catch (error) {
      this.#countCall("failed");
      throw error;
    }

    const { result, replica } = answered;
    this.#countCall("answered", result.promptTokens, result.completionTokens);
    const response: ChatResponse = {
      text: result.text,
      usage: { promptTokens: result.promptTokens, completionTokens: result.completionTokens },
      finishReason: result.finishReason,
      cached: false,
      latencyMs: this.#clock.now() - started,
      endpoint: replica.endpoint,
    };
    if (result.reasoning !== "") response.reasoning = result.reasoning;
    if (result.serverMs !== undefined) response.serverMs = result.serverMs;
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

  /** The retry layer (retrying-call.ts) over single attempts (openai-attempt.ts). */
  #withRetries(body: ChatCompletionBody, signal: AbortSignal | undefined): Promise<{ result: AttemptResult; replica: Replica }> {
    const attemptContext = { config: this.config, errorContext: (endpoint: string) => this.#errorContext(endpoint) };
    return callWithRetries<Replica, AttemptResult>(
      {
        pool: this.#pool,
        breaker: this.#breaker,
        policy: this.config,
        sleep: this.#sleep,
        random: this.#random,
        attempt: (replica, attemptSignal) => attemptCompletion(replica, body, attemptSignal, attemptContext),
        toModelError: (thrown, replica) => mapOpenAIError(thrown, this.#errorContext(replica.endpoint)),
        onRequest: (retry) => this.#countRequest(retry),
        errorBase: (replica) => this.#errorBase(replica === undefined ? this.endpoints.join(", ") : replica.endpoint),
      },
      signal,
    );
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
