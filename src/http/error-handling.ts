import type { FastifyPluginCallback, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { HttpError, toHttpError } from "./http-error.js";

/**
 * Every failure of an app, from fastify or a handler, answered as the one error body
 * (`HttpError.toBody()`) with its status; a 5xx's internal cause logged, never sent; unknown
 * routes a 404 `route_not_found`.
 */
export interface ErrorHandlingOptions {
  /** What a 404 for an unknown route says, e.g. `no route POST /x (see /docs)`. */
  notFoundMessage: (method: string, path: string) => string;
  /** An app's own mapping, tried before the shared one (e.g. the viewer's unreadable run directory). */
  mapError?: (error: unknown) => HttpError | undefined;
  /** Told of every failure answered (the server counts them in its metrics). */
  onFailure?: (failure: HttpError, request: FastifyRequest) => void;
}

const errorHandlingPlugin: FastifyPluginCallback<ErrorHandlingOptions> = (app, options, done) => {
  const { onFailure } = options;
  app.setErrorHandler((error, request, reply) => {
    const failure = options.mapError?.(error) ?? toHttpError(error, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0);
    if (failure.status >= 500 && failure.cause !== undefined)
      request.log.error({ err: failure.cause, code: failure.code }, failure.message);
    onFailure?.(failure, request);
    if (failure.retryAfterSeconds !== undefined) void reply.header("retry-after", String(failure.retryAfterSeconds));
    if (failure.code === "unauthorized") void reply.header("www-authenticate", 'Bearer realm="aeb"');
    return reply.code(failure.status).send(failure.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const failure = new HttpError(404, "route_not_found", options.notFoundMessage(request.method, request.url.split("?")[0] ?? "/"));
    onFailure?.(failure, request);
    return reply.code(404).send(failure.toBody());
  });
  done();
};

/** The error handler and the not-found handler of the whole app (registered at its root). */
export const errorHandling = fp(errorHandlingPlugin, { name: "aeb-error-handling", fastify: "5.x" });
