/**
 * Typed errors for model calls.
 *
 * Why a hierarchy instead of rethrowing SDK errors: callers (the episode
 * runner, the CLI) must decide "retry later, skip this sample, or abort the
 * run" without knowing which SDK or server produced the failure. Every error
 * says whether it is retryable, which endpoint (without credentials) and model
 * it concerns, and carries a `kind` to switch on.
 *
 * Messages are passed through {@link redactSecrets} at construction, so a
 * server that echoes the API key cannot smuggle it into logs.
 *
 * `isInstance()` exists because `instanceof` fails when two copies of this
 * module are loaded (e.g. a linked checkout plus an installed package); it
 * checks a global brand symbol and the `kind` instead of the prototype chain.
 */
import { redactSecrets } from "./redaction.js";

const BRAND: unique symbol = Symbol.for("aeb.llm.ModelCallError") as never;

/** Discriminant of a {@link ModelCallError}. */
export type ModelCallErrorKind =
  | "http"
  | "timeout"
  | "connection"
  | "empty-completion"
  | "incomplete-stream"
  | "invalid-response"
  | "aborted"
  | "outage"
  | "probe"
  | "config"
  | "unexpected";

export interface ModelCallErrorOptions {
  /** Base URL without credentials (see `displayEndpoint`). */
  endpoint: string;
  model: string;
  role?: string | undefined;
  isRetryable: boolean;
  status?: number | undefined;
  /** Strings that must not appear in the message (API keys). */
  secrets?: readonly string[] | undefined;
  cause?: unknown;
}

/**
 * A copy of an underlying error that is safe to keep as `cause`: message
 * redacted, `name` and `code` kept, nested causes sanitised (bounded depth).
 * The original object is dropped because network errors can quote request
 * URLs or headers, and `util.inspect` prints the whole cause chain.
 */
export function sanitizeCause(cause: unknown, secrets: readonly string[], depth = 0): unknown {
  if (cause === undefined || cause === null) return undefined;
  if (depth >= 4) return undefined;
  if (ModelCallError.isInstance(cause)) return cause;
  if (!(cause instanceof Error)) return new Error(redactSecrets(String(cause), secrets));
  const copy = new Error(redactSecrets(cause.message, secrets), {
    cause: sanitizeCause((cause as { cause?: unknown }).cause, secrets, depth + 1),
  });
  copy.name = cause.name;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") (copy as { code?: unknown }).code = code;
  return copy;
}

/** Base class of every error raised by the model-client layer. */
export class ModelCallError extends Error {
  override name = "ModelCallError";
  readonly kind: ModelCallErrorKind = "unexpected";
  readonly isRetryable: boolean;
  readonly status?: number;
  readonly endpoint: string;
  readonly model: string;
  readonly role?: string;
  /** Attempts made before giving up (1 when the error was not retried). */
  attempts = 1;
  readonly [BRAND] = true;

  constructor(detail: string, options: ModelCallErrorOptions) {
    const who = options.role ? `model "${options.model}" (role ${options.role})` : `model "${options.model}"`;
    const secrets = options.secrets ?? [];
    super(redactSecrets(`${who} at ${options.endpoint}: ${detail}`, secrets), {
      cause: sanitizeCause(options.cause, secrets),
    });
    this.isRetryable = options.isRetryable;
    if (options.status !== undefined) this.status = options.status;
    this.endpoint = options.endpoint;
    this.model = options.model;
    if (options.role !== undefined) this.role = options.role;
  }

  /** True for any model-call error, even from another copy of this module. */
  static isInstance(value: unknown): value is ModelCallError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  /** Records that the retry loop gave up after `attempts` tries. */
  markExhausted(attempts: number): this {
    this.attempts = attempts;
    if (attempts > 1) this.message += ` (gave up after ${attempts} attempts)`;
    return this;
  }
}

/** Non-2xx HTTP status. Retryable for 408, 409, 429 and 5xx. */
export class ModelHttpError extends ModelCallError {
  override name = "ModelHttpError";
  override readonly kind = "http";
  declare readonly status: number;
  /** Server-requested wait from `Retry-After` / `retry-after-ms`, if any. */
  readonly retryAfterMs?: number;

  constructor(detail: string, options: ModelCallErrorOptions & { status: number; retryAfterMs?: number | undefined }) {
    super(detail, options);
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(value: unknown): value is ModelHttpError {
    return ModelCallError.isInstance(value) && value.kind === "http";
  }
}

/**
 * No reply in time. `phase` "total" means `timeoutMs` elapsed for the attempt;
 * "idle" means nothing (headers or stream chunk) arrived for `idleTimeoutMs`.
 * Always retryable: a stalled replica is usually a transient overload.
 */
export class ModelTimeoutError extends ModelCallError {
  override name = "ModelTimeoutError";
  override readonly kind = "timeout";
  readonly phase: "total" | "idle";

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable"> & { phase: "total" | "idle" }) {
    super(detail, { ...options, isRetryable: true });
    this.phase = options.phase;
  }

  static override isInstance(value: unknown): value is ModelTimeoutError {
    return ModelCallError.isInstance(value) && value.kind === "timeout";
  }
}

/** Connection refused, reset or dropped mid-stream. Always retryable. */
export class ModelConnectionError extends ModelCallError {
  override name = "ModelConnectionError";
  override readonly kind = "connection";
  /** System error code when known, e.g. ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET. */
  readonly code?: string;

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable"> & { code?: string | undefined }) {
    super(detail, { ...options, isRetryable: true });
    if (options.code !== undefined) this.code = options.code;
  }

  static override isInstance(value: unknown): value is ModelConnectionError {
    return ModelCallError.isInstance(value) && value.kind === "connection";
  }
}

/**
 * The server answered but produced no text. Retryable (once, by the client's
 * policy) unless `finishReason` is "length": then the token budget was spent
 * before any text (typically on reasoning) and resampling will not help.
 */
export class ModelEmptyCompletionError extends ModelCallError {
  override name = "ModelEmptyCompletionError";
  override readonly kind = "empty-completion";
  readonly finishReason: string | null;

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable"> & { finishReason: string | null }) {
    super(detail, { ...options, isRetryable: options.finishReason !== "length" });
    this.finishReason = options.finishReason;
  }

  static override isInstance(value: unknown): value is ModelEmptyCompletionError {
    return ModelCallError.isInstance(value) && value.kind === "empty-completion";
  }
}

/**
 * The stream ended cleanly but without a finish reason: the reply is probably
 * truncated (a proxy closed the connection). Retryable, because scoring a
 * truncated reply would silently bias a benchmark.
 */
export class ModelIncompleteStreamError extends ModelCallError {
  override name = "ModelIncompleteStreamError";
  override readonly kind = "incomplete-stream";

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable">) {
    super(detail, { ...options, isRetryable: true });
  }

  static override isInstance(value: unknown): value is ModelIncompleteStreamError {
    return ModelCallError.isInstance(value) && value.kind === "incomplete-stream";
  }
}

/** The server sent something unparseable or an in-stream error event. */
export class ModelResponseError extends ModelCallError {
  override name = "ModelResponseError";
  override readonly kind = "invalid-response";

  static override isInstance(value: unknown): value is ModelResponseError {
    return ModelCallError.isInstance(value) && value.kind === "invalid-response";
  }
}

/** The caller's AbortSignal fired. Never retried. */
export class ModelAbortedError extends ModelCallError {
  override name = "ModelAbortedError";
  override readonly kind = "aborted";

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable">) {
    super(detail, { ...options, isRetryable: false });
  }

  static override isInstance(value: unknown): value is ModelAbortedError {
    return ModelCallError.isInstance(value) && value.kind === "aborted";
  }
}

/**
 * The endpoint stayed down (circuit breaker open) longer than the breaker waits. A run treats it
 * as a reason to stop cleanly, keeping what finished, not as a failure of each dialogue.
 */
export class ModelOutageError extends ModelCallError {
  override name = "ModelOutageError";
  override readonly kind = "outage";

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable">) {
    super(detail, { ...options, isRetryable: false });
  }

  static override isInstance(value: unknown): value is ModelOutageError {
    return ModelCallError.isInstance(value) && value.kind === "outage";
  }
}

/** Invalid configuration detected before any call (e.g. the key's env var is unset). */
export class ModelConfigError extends ModelCallError {
  override name = "ModelConfigError";
  override readonly kind = "config";

  constructor(detail: string, options: Omit<ModelCallErrorOptions, "isRetryable">) {
    super(detail, { ...options, isRetryable: false });
  }

  static override isInstance(value: unknown): value is ModelConfigError {
    return ModelCallError.isInstance(value) && value.kind === "config";
  }
}

/** One endpoint's failure inside a {@link ModelProbeError}. */
export interface ProbeFailure {
  endpoint: string;
  reason: string;
}

/** Preflight failed for at least one base URL; lists every failing endpoint. */
export class ModelProbeError extends ModelCallError {
  override name = "ModelProbeError";
  override readonly kind = "probe";
  readonly failures: readonly ProbeFailure[];

  constructor(failures: readonly ProbeFailure[], options: Omit<ModelCallErrorOptions, "isRetryable" | "endpoint">) {
    const endpoints = failures.map((f) => f.endpoint).join(", ");
    const detail = `preflight failed: ${failures.map((f) => `${f.endpoint}: ${f.reason}`).join("; ")}`;
    super(detail, { ...options, endpoint: endpoints, isRetryable: false });
    this.failures = failures.map((f) => ({
      endpoint: f.endpoint,
      reason: redactSecrets(f.reason, options.secrets ?? []),
    }));
  }

  static override isInstance(value: unknown): value is ModelProbeError {
    return ModelCallError.isInstance(value) && value.kind === "probe";
  }
}
