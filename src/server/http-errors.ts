import type { FastifyInstance } from "fastify";
import type { z } from "zod";
import { EnvironmentError, issuesOf } from "./environment-error.js";
import type { EnvironmentMetrics } from "./prometheus-metrics.js";

/**
 * How requests are validated and how every failure is answered: a JSON body
 * `{ error, code, retryable }` with a 4xx or 5xx status, internal causes logged, never sent.
 */

/** An error from fastify itself (body parsing, limits) or from a handler, as the client should see it. */
export function toEnvironmentError(error: unknown, bodyLimit: number): EnvironmentError {
  if (EnvironmentError.isInstance(error)) return error;
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new EnvironmentError(400, "invalid_json", `the body is not valid JSON: ${fastifyError.message ?? "parse error"}`);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new EnvironmentError(400, "invalid_json", "the body is empty; send a JSON object");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new EnvironmentError(413, "body_too_large", `the body is larger than this route's limit of ${bodyLimit} bytes`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new EnvironmentError(415, "unsupported_media_type", "send the body as JSON with Content-Type: application/json");
    default:
      break;
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new EnvironmentError(400, "invalid_json", `the body is not acceptable JSON: ${error.message}`);
  }
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new EnvironmentError(status, "invalid_request", fastifyError.message ?? "bad request");
  }
  return new EnvironmentError(500, "internal", "internal server error", { cause: error });
}

/** A zod validation failure as a 400 that names every issue by path. */
export function invalidRequest(
  where: string,
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): EnvironmentError {
  const named = issuesOf(issues);
  return new EnvironmentError(
    400,
    "invalid_request",
    `invalid ${where}: ${named.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
    { issues: named },
  );
}

/**
 * Validation with zod: no coercion, unknown fields rejected, issues named by path. A route's schema
 * may be swapped for another (`overrides`, e.g. the batch envelope), or skipped for bodies that are
 * still raw bytes (a batch handed to the step pool, validated in its thread).
 */
export function registerValidation(app: FastifyInstance, overrides: ReadonlyMap<unknown, z.ZodType>): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validator = overrides.get(schema) ?? (schema as z.ZodType);
    return (data: unknown) => {
      if (httpPart === "body" && (data === null || data === undefined)) {
        return { error: new EnvironmentError(400, "invalid_request", "the request needs a JSON body (Content-Type: application/json)") };
      }
      if (httpPart === "body" && data instanceof Uint8Array) return { value: data };
      const result = validator.safeParse(data);
      if (result.success) return { value: result.data };
      return {
        error: invalidRequest(
          `request ${httpPart === "body" ? "body" : httpPart === "params" ? "path parameters" : httpPart}`,
          result.error.issues,
        ),
      };
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

/** Every error, from fastify or a handler, as the JSON error body; unknown routes as 404 `route_not_found`. */
export function registerErrorHandling(app: FastifyInstance, metrics: EnvironmentMetrics, defaultBodyLimit: number): void {
  app.setErrorHandler((error, request, reply) => {
    const failure = toEnvironmentError(error, request.routeOptions.bodyLimit ?? defaultBodyLimit);
    if (failure.status >= 500 && failure.cause !== undefined)
      request.log.error({ err: failure.cause, code: failure.code }, failure.message);
    metrics.countError(failure.code, failure.status);
    if (failure.retryAfterSeconds !== undefined) void reply.header("retry-after", String(failure.retryAfterSeconds));
    if (failure.code === "unauthorized") void reply.header("www-authenticate", 'Bearer realm="aeb"');
    return reply.code(failure.status).send(failure.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    metrics.countError("route_not_found", 404);
    return reply
      .code(404)
      .send(new EnvironmentError(404, "route_not_found", `no route ${request.method} ${request.url.split("?")[0]} (see /docs)`).toBody());
  });
}
