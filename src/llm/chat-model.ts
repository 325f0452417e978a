/**
 * The narrow contract every AEB role (agent under test, simulated user, judge)
 * uses to talk to a language model.
 *
 * Why so narrow: roles should not know which server, SDK, replica, cache or
 * retry policy sits behind a call. Keeping the surface to "messages in, text
 * out, plus accounting" lets tests swap in the mock server or a scripted
 * model, and lets the transport evolve without touching role code.
 */

/** One chat turn. Only the three roles every OpenAI-compatible server accepts. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A single completion request made by a role. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Sampling overrides for this call; unset fields fall back to the endpoint config. */
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
  /**
   * JSON schema for structured output (`response_format` json_schema) where the
   * endpoint supports it; see `structuredOutput` in the endpoint config for how
   * it degrades on servers that do not.
   */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /**
   * Identity of the sample for the cache key: e.g. dialogue id, turn, role.
   * Only requests that carry a sampleKey are cached, so that repeated identical
   * prompts meant as independent samples never collapse onto one cached reply.
   */
  sampleKey?: string;
  /** Cancels the call (including queueing and retry back-off) when aborted. */
  signal?: AbortSignal;
}

/** Result of a successful completion. */
export interface ChatResponse {
  /** Assistant text, exactly as returned (never empty: empty completions are errors). */
  text: string;
  /** Separate reasoning trace, when the server returns one (`reasoning_content` / `reasoning`). */
  reasoning?: string;
  /** Token counts reported by the server (0 when the server reports none). */
  usage: { promptTokens: number; completionTokens: number };
  finishReason: string | null;
  /** True when served from the on-disk response cache (no request was sent). */
  cached: boolean;
  /** Wall time of the whole call as the caller saw it: queueing, retries and back-off included. */
  latencyMs: number;
  /**
   * The server's own time for the request that answered, where the server reports one (the
   * `openai-processing-ms` header: OpenAI's API and `aeb mock-llm` send it): what the call would
   * take with no client, network or queueing around it. Absent for cache hits and other servers.
   */
  serverMs?: number;
  /** Base URL that produced the reply, without credentials or query string. */
  endpoint: string;
}

/** Running totals for one model client (one model in one role). */
export interface UsageTotals {
  model: string;
  role: string;
  /** Successful calls answered by a server (cache hits excluded). */
  calls: number;
  /** Calls answered from the response cache. */
  cachedCalls: number;
  /** Calls that ended in an error after retries. */
  failedCalls: number;
  /** HTTP attempts sent, including retries. */
  requests: number;
  /** Attempts that were retries of an earlier failed attempt. */
  retries: number;
  /** Tokens of successful, non-cached calls only. */
  promptTokens: number;
  completionTokens: number;
}

/**
 * What a model client reports as it works, for a durable usage record (a run directory's
 * usage.jsonl): each client once when made, each HTTP request before it is sent, each call when
 * it ends. Summing them gives {@link UsageTotals}; written as they happen, a kill loses none.
 */
export type UsageEvent =
  | { event: "model"; role: string; model: string }
  | { event: "request"; role: string; model: string; retry: boolean }
  | {
      event: "call";
      role: string;
      model: string;
      outcome: "answered" | "cached" | "failed";
      promptTokens: number;
      completionTokens: number;
    };

/** Where a model client reports its {@link UsageEvent}s. Recording must not throw. */
export interface UsageSink {
  record(event: UsageEvent): void;
}

/**
 * One finished model call, reported to an optional instrumentation hook (`onCall` of the OpenAI
 * client, `onModelCall` of a run): benchmarks use it to know how long each dialogue waited on
 * models. Reporting never changes a call.
 */
export interface ModelCallEvent {
  /** Role of the client (e.g. `agent:think`, `simulator`, `judge:ecs`). */
  role: string;
  /** The request's sampleKey; in runs it starts with the dialogue id, then `#`. */
  sampleKey: string | undefined;
  /**
   * Client-observed wall time of the call, from `complete()` being called to its result (as
   * {@link ChatResponse.latencyMs}): waiting for a free slot, every attempt, back-off and reading
   * the stream included.
   */
  latencyMs: number;
  /** The answering request's server-reported time (ChatResponse.serverMs), where there is one. */
  serverMs?: number;
  /** Answered from the response cache (no request sent). */
  cached: boolean;
  /** False when the call ended in an error. */
  ok: boolean;
}

/** What roles depend on. Implementations: {@link createOpenAIChatModel}. */
export interface ChatModel {
  /** Model name as sent to the server. */
  readonly id: string;
  /** Role this client serves (e.g. "agent", "user-sim", "judge"); used in errors and usage reports. */
  readonly role: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
  usage(): UsageTotals;
}
