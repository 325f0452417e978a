/**
 * Translating whatever the `openai` SDK (or the socket under it) throws into
 * the typed {@link ModelCallError} hierarchy.
 *
 * Why a separate step: the SDK reports the same physical event in several
 * shapes (an abort during headers is `APIUserAbortError`, during the body the
 * stream simply ends; a dropped socket is `APIConnectionError` before headers
 * but a bare `TypeError: terminated` from undici after). Our own abort reason
 * ("idle", "total", "user") is authoritative, so it is checked first; the
 * rest is classified by status and by network error codes in the cause chain.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import {
  ModelAbortedError,
  ModelCallError,
  ModelConnectionError,
  ModelHttpError,
  ModelResponseError,
  ModelTimeoutError,
} from "./errors.js";
import { isRetryableStatus, parseRetryAfterMs } from "./retry-policy.js";

/** Why the model client aborted an attempt itself, if it did. */
export type AbortReason = "idle" | "total" | "user";

export interface ErrorContext {
  endpoint: string;
  model: string;
  role: string;
  secrets: readonly string[];
  nowMs: number;
  timeoutMs: number;
  idleTimeoutMs: number;
}

/** Error codes that mean "the network failed", wherever they sit in the cause chain. */
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** First system error code found walking `cause` links (bounded, cycles ignored). */
export function findErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code.length > 0) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function truncate(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string" && body.message !== "") return truncate(body.message);
  return truncate(error.message);
}

/** Maps any thrown value from one attempt to a ModelCallError. */
export function mapOpenAIError(error: unknown, ctx: ErrorContext, abortReason?: AbortReason): ModelCallError {
  const base = { endpoint: ctx.endpoint, model: ctx.model, role: ctx.role, secrets: ctx.secrets };
  if (abortReason === "user") return new ModelAbortedError("call cancelled by the caller", base);
  if (abortReason === "idle") {
    return new ModelTimeoutError(`no data received for ${ctx.idleTimeoutMs} ms (idle timeout)`, {
      ...base,
      phase: "idle",
    });
  }
  if (abortReason === "total") {
    return new ModelTimeoutError(`no complete reply within ${ctx.timeoutMs} ms`, { ...base, phase: "total" });
  }
  if (ModelCallError.isInstance(error)) return error;

  if (error instanceof APIConnectionTimeoutError) {
    return new ModelTimeoutError(`no response headers within ${ctx.timeoutMs} ms`, { ...base, phase: "total" });
  }
  if (error instanceof APIUserAbortError) return new ModelAbortedError("request aborted", base);
  if (error instanceof APIConnectionError) {
    const code = findErrorCode(error.cause);
    return new ModelConnectionError(`connection failed (${code ?? truncate(error.message)})`, {
      ...base,
      code,
      cause: error.cause,
    });
  }
  if (error instanceof APIError) {
    if (typeof error.status === "number") {
      return new ModelHttpError(`HTTP ${error.status}: ${serverMessage(error)}`, {
        ...base,
        status: error.status,
        isRetryable: isRetryableStatus(error.status),
        retryAfterMs: parseRetryAfterMs(error.headers, ctx.nowMs),
      });
    }
    // An error event inside an otherwise successful stream (vLLM, SGLang do this on engine failures).
    const code = (error.error as { code?: unknown } | undefined)?.code;
    const numeric = typeof code === "number" ? code : typeof code === "string" ? Number(code) : Number.NaN;
    return new ModelResponseError(`server reported an error mid-stream: ${serverMessage(error)}`, {
      ...base,
      isRetryable: Number.isInteger(numeric) && numeric >= 400 ? isRetryableStatus(numeric) : true,
    });
  }
  if (error instanceof SyntaxError) {
    return new ModelResponseError(`malformed response data: ${truncate(error.message)}`, {
      ...base,
      isRetryable: true,
    });
  }
  const code = findErrorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if ((code !== undefined && NETWORK_CODES.has(code)) || /terminated|socket|other side closed/i.test(message)) {
    return new ModelConnectionError(`connection dropped mid-response (${code ?? truncate(message)})`, {
      ...base,
      code,
      cause: error,
    });
  }
  return new ModelCallError(`unexpected error: ${truncate(message)}`, { ...base, isRetryable: false, cause: error });
}
