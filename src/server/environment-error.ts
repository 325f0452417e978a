/**
 * The errors of the environment server. Each carries the HTTP status it answers with, a stable
 * machine-readable `code`, and whether the same request may simply be retried. The message is
 * written for the client: it says what is wrong and never contains internal error text.
 */
export type EnvironmentErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "unsupported_media_type"
  | "body_too_large"
  | "unauthorized"
  | "rate_limited"
  | "route_not_found"
  | "unknown_scenario"
  | "no_matching_scenario"
  | "invalid_token"
  | "scenario_changed"
  | "simulator_changed"
  | "history_mismatch"
  | "episode_done"
  | "session_not_found"
  | "session_busy"
  | "stale_turn"
  | "turn_mismatch"
  | "too_many_sessions"
  | "sessions_unavailable"
  | "simulator_unavailable"
  | "simulator_failed"
  | "step_timeout"
  | "cancelled"
  | "shutting_down"
  | "recording_failed"
  | "misdirected_request"
  | "metrics_unavailable"
  | "internal";

/** One field-level problem in a request, as `path: message`. */
export interface RequestIssue {
  path: string;
  message: string;
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: string;
  code: EnvironmentErrorCode;
  /** True when the same request may be sent again unchanged (the step is deterministic, so it is safe). */
  retryable: boolean;
  issues?: RequestIssue[];
}

export class EnvironmentError extends Error {
  override readonly name = "EnvironmentError";
  /** Marker so `isInstance` works across module copies. */
  readonly environmentError = true;
  readonly status: number;
  readonly code: EnvironmentErrorCode;
  readonly retryable: boolean;
  readonly issues: RequestIssue[] | undefined;
  /** Seconds after which a retry makes sense (`Retry-After`), where known. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    code: EnvironmentErrorCode,
    message: string,
    options: { retryable?: boolean; issues?: RequestIssue[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static isInstance(value: unknown): value is EnvironmentError {
    return typeof value === "object" && value !== null && (value as { environmentError?: unknown }).environmentError === true;
  }

  toBody(): ErrorBody {
    return {
      error: this.message,
      code: this.code,
      retryable: this.retryable,
      ...(this.issues !== undefined ? { issues: this.issues } : {}),
    };
  }
}

/** Zod issues as `path: message` pairs (`(root)` for the body itself). */
export function issuesOf(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): RequestIssue[] {
  return issues.map((issue) => ({
    path:
      issue.path.length === 0
        ? "(root)"
        : issue.path
            .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
            .join(".")
            .replaceAll(".[", "["),
    message: issue.message,
  }));
}
