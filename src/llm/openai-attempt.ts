/**
 * One attempt: one request to one replica through the `openai` SDK, bounded by a total timer (and,
 * when streaming, an idle timer), turned into a result or a typed {@link ModelCallError}. The
 * layers above decide whether to retry, where, and how to count it.
 *
 * Why timers of our own: the SDK's `timeout` covers only the wait for response headers; a server
 * that sends headers and then stalls would hang a run forever. `timeoutMs` bounds the whole
 * attempt, body included. With `stream: true` every chunk re-arms an idle timer (SSE keep-alive
 * comments do not count), and a stream that already delivered its finish reason is accepted even
 * if the socket then lingers. Without streaming (the default, half the CPU per call) the reply is
 * one JSON body: sent straight over undici with the SDK's URL and headers (direct-completion.ts),
 * or through the SDK where the client was given its own fetch.
 */
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { Dispatcher } from "undici";
import { sendCompletion, type CompletionTarget } from "./direct-completion.js";
import type { ModelEndpointConfig } from "./endpoint-config.js";
import { ModelEmptyCompletionError, ModelIncompleteStreamError, ModelResponseError } from "./errors.js";
import { mapOpenAIError, type AbortReason, type ErrorContext } from "./openai-error-mapping.js";
import type { buildChatCompletionBody } from "./request-body.js";

/** One SDK client bound to one base URL. */
export interface Replica {
  /** Display form: no credentials, no query. */
  endpoint: string;
  client: OpenAI;
  /**
   * Plain completions sent straight over undici with the SDK's URL and headers (direct-completion.ts);
   * absent where the client was given its own fetch, whose completions go through the SDK.
   */
  direct?: DirectTransport;
}

/** The direct transport of one replica: its target, computed on first use, and the connection pool. */
export interface DirectTransport {
  target: () => Promise<CompletionTarget>;
  dispatcher: Dispatcher;
}

/** A finished attempt before it is turned into a ChatResponse. */
export interface AttemptResult {
  text: string;
  reasoning: string;
  finishReason: string | null;
  promptTokens: number;
  completionTokens: number;
  /** The server's own processing time, where it reports one (the `openai-processing-ms` header). */
  serverMs?: number;
}

/** `openai-processing-ms`, which OpenAI's API and the mock server send; absent or unreadable: undefined. */
function processingMs(headers: Headers): number | undefined {
  return processingMsOf(headers.get("openai-processing-ms") ?? undefined);
}

function processingMsOf(header: string | undefined): number | undefined {
  const value = Number(header ?? Number.NaN);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The abort switch of one attempt, shared by both transports. */
interface AttemptControl {
  controller: AbortController;
  abort(why: AbortReason): void;
  /** Why the attempt was aborted by us or the caller, if it was. */
  reason(): AbortReason | undefined;
}

export type ChatCompletionBody = ReturnType<typeof buildChatCompletionBody>;

/** What an attempt needs to know of its model client: timers, and what errors name. */
export interface AttemptContext {
  config: Pick<ModelEndpointConfig, "timeoutMs" | "idleTimeoutMs">;
  /** Error context for this replica (endpoint, model, role, secrets, clock reading). */
  errorContext(endpoint: string): ErrorContext;
}

/** One request to one replica. Always throws a ModelCallError (errors.ts) on failure. */
export async function attemptCompletion(
  replica: Replica,
  body: ChatCompletionBody,
  signal: AbortSignal | undefined,
  context: AttemptContext,
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
  const totalTimer = setTimeout(() => abort("total"), context.config.timeoutMs);
  const attempt = { controller, abort, reason: () => reason };
  try {
    return body.stream === true
      ? await streamedAttempt(replica, body, attempt, context)
      : await plainAttempt(replica, body, attempt, context);
  } finally {
    clearTimeout(totalTimer);
    signal?.removeEventListener("abort", onCallerAbort);
  }
}

/** One JSON reply: nothing arrives until the server is done, so only the total timer applies. */
async function plainAttempt(
  replica: Replica,
  body: ChatCompletionCreateParamsNonStreaming,
  attempt: AttemptControl,
  context: AttemptContext,
): Promise<AttemptResult> {
  let completion: unknown;
  let serverMs: number | undefined;
  try {
    if (replica.direct !== undefined) {
      const reply = await sendCompletion(await replica.direct.target(), body, attempt.controller.signal, replica.direct.dispatcher);
      completion = reply.completion;
      serverMs = processingMsOf(reply.processingMs);
    } else {
      const { data, response } = await replica.client.chat.completions
        .create(body, { signal: attempt.controller.signal, timeout: context.config.timeoutMs })
        .withResponse();
      completion = data;
      serverMs = processingMs(response.headers);
    }
  } catch (error) {
    throw mapOpenAIError(error, context.errorContext(replica.endpoint), attempt.reason());
  }
  const reason = attempt.reason();
  if (reason !== undefined) throw mapOpenAIError(undefined, context.errorContext(replica.endpoint), reason);
  // Built only for an error: a successful call needs no context (it reads the clock and copies the config).
  const errorContext = () => context.errorContext(replica.endpoint);
  // A 200 whose body is not a chat completion (an HTML error page, a proxy's text) arrives as a
  // string or an object without choices: a server fault worth one more try.
  const choice = (completion as Partial<ChatCompletion> | null)?.choices?.[0];
  if (typeof completion !== "object" || completion === null || choice === undefined) {
    throw new ModelResponseError("response is not a chat completion (no choices)", { ...errorContext(), isRetryable: true });
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
  return checkedResult(errorContext, {
    text,
    reasoning,
    finishReason,
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ...(serverMs !== undefined ? { serverMs } : {}),
  });
}

/** One streamed reply: every chunk re-arms the idle timer. */
async function streamedAttempt(
  replica: Replica,
  body: ChatCompletionCreateParamsStreaming,
  attempt: AttemptControl,
  context: AttemptContext,
): Promise<AttemptResult> {
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = (): void => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => attempt.abort("idle"), context.config.idleTimeoutMs);
  };

  let text = "";
  let reasoning = "";
  let finishReason: string | null = null;
  let promptTokens = 0;
  let completionTokens = 0;
  let serverMs: number | undefined;
  /** A stream that already delivered its finish reason is complete even if the socket then lingers. */
  const finishedBeforeAbort = (): boolean => {
    const reason = attempt.reason();
    return finishReason !== null && reason !== undefined && reason !== "user";
  };

  touch();
  try {
    const { data: stream, response } = await replica.client.chat.completions
      .create(body, { signal: attempt.controller.signal, timeout: context.config.timeoutMs })
      .withResponse();
    serverMs = processingMs(response.headers);
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
    if (!finishedBeforeAbort()) throw mapOpenAIError(error, context.errorContext(replica.endpoint), attempt.reason());
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
  }

  const errorContext = () => context.errorContext(replica.endpoint);
  // The SDK ends iteration silently when its signal aborts, so our own reason decides.
  const reason = attempt.reason();
  if (reason !== undefined && !finishedBeforeAbort()) throw mapOpenAIError(undefined, errorContext(), reason);
  if (finishReason === null)
    throw new ModelIncompleteStreamError("stream ended without a finish reason (reply probably truncated)", errorContext());
  return checkedResult(errorContext, {
    text,
    reasoning,
    finishReason,
    promptTokens,
    completionTokens,
    ...(serverMs !== undefined ? { serverMs } : {}),
  });
}

/** Rules shared by both transports: a reply needs a finish reason and some text. */
function checkedResult(context: () => ErrorContext, result: AttemptResult): AttemptResult {
  if (result.finishReason === null) {
    throw new ModelResponseError("reply has no finish reason (probably truncated)", { ...context(), isRetryable: true });
  }
  if (result.text.trim() === "") {
    throw new ModelEmptyCompletionError(`empty completion (finish reason "${result.finishReason}")`, {
      ...context(),
      finishReason: result.finishReason,
    });
  }
  return result;
}
