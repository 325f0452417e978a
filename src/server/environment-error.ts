import { HttpError, type ErrorBody as HttpErrorBody, type HttpErrorCode } from "../http/http-error.js";

export { issuesOf, type RequestIssue } from "../http/http-error.js";

/**
 * The errors of the environment server. Each carries the HTTP status it answers with, a stable
 * machine-readable `code`, and whether the same request may simply be retried. The message is
 * written for the client: it says what is wrong and never contains internal error text.
 */
export type EnvironmentErrorCode =
  | HttpErrorCode
  | "unauthorized"
  | "rate_limited"
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
  | "metrics_unavailable";

/** The JSON body of every error response of the server (src/http/http-error.ts), with the server's codes. */
export type ErrorBody = HttpErrorBody<EnvironmentErrorCode>;

/** The server's error: the shared HTTP error (src/http/) with the server's codes. */
export class EnvironmentError extends HttpError<EnvironmentErrorCode> {
  override readonly name: string = "EnvironmentError";

  static override isInstance(value: unknown): value is EnvironmentError {
    return HttpError.isInstance(value);
  }
}
