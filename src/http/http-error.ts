import { z } from "zod";

/**
 * The one error of both HTTP apps (the environment server and the viewer): an HTTP status, a
 * stable machine-readable `code`, whether the same request may simply be sent again, and a message
 * written for the client (what is wrong and how to fix it, never internal error text). Every error
 * response of either app is its `toBody()`.
 */

/** One field-level problem in a request, as `path: message`. */
export interface RequestIssue {
  path: string;
  message: string;
}

/** The JSON body of every error response, as a zod schema (the OpenAPI document and tests read it). */
export const ErrorBodySchema = z.strictObject({
  error: z.string(),
  code: z.string(),
  retryable: z.boolean(),
  issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
});

/**
 * The JSON body of every error response (the schema's type); `Code` narrows `code` to an app's own
 * codes. `retryable`: the same request may be sent again unchanged.
 */
export type ErrorBody<Code extends string = string> = Omit<z.infer<typeof ErrorBodySchema>, "code"> & { code: Code };

/** The codes the shared HTTP layer itself answers with (body parsing, validation, routing, the Host check). */
export type HttpErrorCode =
  "invalid_json" | "invalid_request" | "unsupported_media_type" | "body_too_large" | "route_not_found" | "misdirected_request" | "internal";

export interface HttpErrorOptions {
  retryable?: boolean;
  issues?: RequestIssue[];
  /** Seconds after which a retry makes sense, sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** The internal cause: logged for a 5xx, never sent. */
  cause?: unknown;
}

export class HttpError<Code extends string = string> extends Error {
  override readonly name: string = "HttpError";
  /** Marker so `isInstance` works across module copies (a worker thread, a second build). */
  readonly httpError = true;
  readonly status: number;
  readonly code: Code;
  readonly retryable: boolean;
  readonly issues: RequestIssue[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: Code, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static isInstance(value: unknown): value is HttpError {
    return typeof value === "object" && value !== null && (value as { httpError?: unknown }).httpError === true;
  }

  toBody(): ErrorBody<Code> {
    return {
      error: this.message,
      code: this.code,
      retryable: this.retryable,
      ...(this.issues !== undefined ? { issues: this.issues } : {}),
    };
  }
}

/** Zod issues as `path: message` pairs (`(root)` for the value itself, `[i]` for array items). */
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

/** A zod validation failure as a 400 `invalid_request` that names every issue by path. */
export function invalidRequest(where: string, issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): HttpError {
  const named = issuesOf(issues);
  return new HttpError(400, "invalid_request", `invalid ${where}: ${named.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`, {
    issues: named,
  });
}

/**
 * An error from fastify itself (body parsing, limits, a 4xx it raised) or from a handler, as the
 * client should see it: an `HttpError` as it is, anything unknown as a 500 `internal` whose cause
 * is kept for the log.
 */
export function toHttpError(error: unknown, bodyLimit: number): HttpError {
  if (HttpError.isInstance(error)) return error;
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new HttpError(400, "invalid_json", `the body is not valid JSON: ${fastifyError.message ?? "parse error"}`);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new HttpError(400, "invalid_json", "the body is empty; send a JSON object");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new HttpError(413, "body_too_large", `the body is larger than this route's limit of ${bodyLimit} bytes`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new HttpError(415, "unsupported_media_type", "send the body as JSON with Content-Type: application/json");
    default:
      break;
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new HttpError(400, "invalid_json", `the body is not acceptable JSON: ${error.message}`);
  }
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new HttpError(status, "invalid_request", fastifyError.message ?? "bad request");
  }
  return new HttpError(500, "internal", "internal server error", { cause: error });
}
