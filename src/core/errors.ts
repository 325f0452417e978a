/**
 * The few typed errors of AEB. They are printed once, at the CLI boundary, as one clear
 * message; inside a run, failures are values on the dialogue record instead.
 */

/** Base class of every error the user can fix (bad file, bad flag, bad config). */
export class AebError extends Error {
  override readonly name: string = "AebError";
  /** Marker so `isInstance` works across module copies. */
  readonly aebError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  static isInstance(value: unknown): value is AebError {
    return typeof value === "object" && value !== null && (value as { aebError?: unknown }).aebError === true;
  }
}

/** A configuration file or flag is invalid. */
export class ConfigError extends AebError {
  override readonly name = "ConfigError";
}

/** A scenario file (or a SAGE/RLVER profile line) is invalid. */
export class ScenarioError extends AebError {
  override readonly name = "ScenarioError";
}

/** A run directory cannot be used as asked (unwritable, made with another config...). */
export class RunDirectoryError extends AebError {
  override readonly name = "RunDirectoryError";
}

/** A run stopped before it could finish (a cancellation, an endpoint outage): what finished is kept, and rerunning resumes it. */
export class RunStoppedError extends AebError {
  override readonly name = "RunStoppedError";
}

/** Formats zod issues as `path: message` lines, so errors name the field that is wrong. */
export function formatIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .map((issue) => {
      const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : String(part))).join(".");
      return `  - ${path === "" ? "(root)" : path}: ${issue.message}`;
    })
    .join("\n");
}
