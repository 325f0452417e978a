import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from "fastify";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import {
  BatchEnvelopeSchema,
  BatchStepRequestSchema,
  BatchStepResponseSchema,
  ErrorBodySchema,
  HealthSchema,
  ResetRequestSchema,
  ResetResponseSchema,
  ScenarioListSchema,
  SessionCreatedSchema,
  SessionParamsSchema,
  SessionStateSchema,
  SessionStepRequestSchema,
  SessionStepResponseSchema,
  StepRequestSchema,
  StepResponseSchema,
  type ResetRequest,
  type StepRequest,
} from "./api-schemas.js";
import { EnvironmentError, issuesOf, type ErrorBody } from "./environment-error.js";
import { Environment, type EnvironmentOptions, type StepOutcome } from "./environment.js";
import { clusterMetricsSource } from "./cluster.js";
import { EnvironmentMetrics, instrumentUser, type StepApi } from "./metrics.js";
import { SessionStore } from "./session-store.js";

export interface ServerOptions extends EnvironmentOptions {
  /** Bearer token every request but /healthz and the docs must carry; required to listen beyond loopback. */
  authToken?: string;
  /** Largest request body, in bytes; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Largest body of a batched step, in bytes; default 8 MiB. */
  batchBodyLimitBytes?: number;
  /** Most steps in one batch; default 256. */
  maxBatchSize?: number;
  /** Requests per client (IP) and window; null turns rate limiting off. Default 600,000 per minute. */
  rateLimit?: { max: number; windowMs: number } | null;
  /** A session unused this long is dropped; default 10 minutes. */
  sessionIdleTimeoutMs?: number;
  /** Most open sessions; default 10,000. */
  maxSessions?: number;
  /** Time to receive a whole request (Node's requestTimeout); default 60 s. */
  requestTimeoutMs?: number;
  /** Logger options for fastify (pino); default off. The Authorization header is always redacted. */
  logger?: boolean | { level: string };
  /** Log every request (costly at thousands of steps per second); default off. */
  logRequests?: boolean;
  /** Trust X-Forwarded-For (behind a load balancer), so rate limits key on the real client. */
  trustProxy?: boolean;
  /**
   * A worker of `aeb serve --workers N`: /metrics serves the primary's sum over all workers, and the
   * session API (state in one process) is off.
   */
  clusterWorker?: boolean;
}

/** Routes anyone may call, even when a bearer token is configured. */
const PUBLIC_PREFIXES = ["/healthz", "/docs", "/openapi.json"];

/** The environment server: a fastify app around one `Environment`, with its sessions and metrics. */
export interface EnvironmentServer {
  app: FastifyInstance;
  environment: Environment;
  sessions: SessionStore;
  metrics: EnvironmentMetrics;
  /** Listens (refusing a non-loopback host without a bearer token) and returns the base URL. */
  listen(options: { host: string; port: number }): Promise<string>;
  /** Stops accepting requests, lets in-flight steps finish, and closes. */
  close(): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

/** Listening beyond loopback without a bearer token would let anyone on the network use (and load) the simulator. */
export function assertSafeBinding(host: string, authToken: string | undefined): void {
  if (!isLoopbackHost(host) && (authToken === undefined || authToken === "")) {
    throw new ConfigError(`listening on ${host} (beyond loopback) needs a bearer token: set AEB_SERVER_TOKEN (or --auth-token)`);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A zod schema as JSON Schema for the OpenAPI document. */
function jsonSchemaOf(schema: unknown, io: "input" | "output"): unknown {
  if (!(schema instanceof z.ZodType)) return schema;
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** An error from fastify itself (body parsing, limits) or from a handler, as the client should see it. */
function toEnvironmentError(error: unknown, bodyLimit: number): EnvironmentError {
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

/**
 * Builds the HTTP environment (not yet listening). Every request is validated with the zod schemas
 * of `api-schemas.ts`, without coercion and without unknown fields; every error is a JSON body
 * `{ error, code, retryable }` with a 4xx or 5xx status.
 */
export async function buildServer(options: ServerOptions): Promise<EnvironmentServer> {
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const batchBodyLimit = options.batchBodyLimitBytes ?? 8 * 1024 * 1024;
  const maxBatchSize = options.maxBatchSize ?? 256;
  const sessions = new SessionStore({ idleTimeoutMs: options.sessionIdleTimeoutMs ?? 10 * 60_000, maxSessions: options.maxSessions ?? 10_000 });
  const metrics = new EnvironmentMetrics({ sessions: () => sessions.size });
  const environment = new Environment({ ...options, user: instrumentUser(options.user, metrics) });
  const authToken = options.authToken === "" ? undefined : options.authToken;
  const metricsText = options.clusterWorker === true ? clusterMetricsSource(metrics.registry) : () => metrics.registry.metrics();
  let closing = false;

  const logger: FastifyServerOptions["logger"] =
    options.logger === undefined || options.logger === false ? false : { level: options.logger === true ? "info" : options.logger.level, redact: ["req.headers.authorization"] };
  const app = Fastify({
    logger,
    bodyLimit,
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    logController: new LogController({ disableRequestLogging: options.logRequests !== true }),
    trustProxy: options.trustProxy ?? false,
    return503OnClosing: false,
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    routerOptions: { ignoreTrailingSlash: true },
  });

  // JSON only: a text body is refused (415) rather than validated as a string.
  app.removeContentTypeParser("text/plain");

  // Validation with zod: no coercion, unknown fields rejected, issues named by path.
  const validatorOverrides = new Map<unknown, z.ZodType>([[BatchStepRequestSchema, BatchEnvelopeSchema.extend({ steps: BatchEnvelopeSchema.shape.steps.max(maxBatchSize) })]]);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validator = validatorOverrides.get(schema) ?? (schema as z.ZodType);
    return (data: unknown) => {
      if (httpPart === "body" && (data === null || data === undefined)) {
        return { error: new EnvironmentError(400, "invalid_request", "the request needs a JSON body (Content-Type: application/json)") };
      }
      const result = validator.safeParse(data);
      if (result.success) return { value: result.data };
      const where = httpPart === "body" ? "body" : httpPart === "params" ? "path parameters" : httpPart;
      return { error: new EnvironmentError(400, "invalid_request", `invalid request ${where}: ${issuesOf(result.error.issues).map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`, { issues: issuesOf(result.error.issues) }) };
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((error, request, reply) => {
    const failure = toEnvironmentError(error, request.routeOptions.bodyLimit ?? bodyLimit);
    if (failure.status >= 500 && failure.cause !== undefined) request.log.error({ err: failure.cause, code: failure.code }, failure.message);
    metrics.countError(failure.code, failure.status);
    if (failure.retryAfterSeconds !== undefined) void reply.header("retry-after", String(failure.retryAfterSeconds));
    if (failure.code === "unauthorized") void reply.header("www-authenticate", 'Bearer realm="aeb"');
    return reply.code(failure.status).send(failure.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    metrics.countError("route_not_found", 404);
    return reply.code(404).send(new EnvironmentError(404, "route_not_found", `no route ${request.method} ${request.url.split("?")[0]} (see /docs)`).toBody());
  });

  app.addHook("onRequest", async (request, reply) => {
    if (closing && request.url !== "/healthz") {
      void reply.header("connection", "close");
      throw new EnvironmentError(503, "shutting_down", "this server is shutting down; send the request to another replica or retry", { retryable: true, retryAfterSeconds: 1 });
    }
    if (authToken === undefined) return;
    const path = request.url.split("?")[0] ?? "";
    if (PUBLIC_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return;
    const header = request.headers.authorization;
    if (typeof header !== "string" || !header.startsWith("Bearer ")) {
      throw new EnvironmentError(401, "unauthorized", "this server needs an Authorization: Bearer <token> header");
    }
    if (!sameSecret(header.slice("Bearer ".length).trim(), authToken)) throw new EnvironmentError(401, "unauthorized", "the bearer token is not accepted");
  });
  app.addHook("onResponse", async (request, reply) => {
    metrics.observeRequest(request.routeOptions.url ?? "unmatched", request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onClose", async () => {
    sessions.stop();
  });

  if (options.rateLimit !== null) {
    const limit = options.rateLimit ?? { max: 600_000, windowMs: 60_000 };
    await app.register(rateLimit, {
      max: limit.max,
      timeWindow: limit.windowMs,
      allowList: (request) => request.url === "/healthz",
      errorResponseBuilder: (_request, context) =>
        new EnvironmentError(429, "rate_limited", `too many requests: at most ${context.max} per ${Math.round(limit.windowMs / 1000)} s from one client; retry in ${context.after}`, {
          retryable: true,
          retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
        }),
    });
  }

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "AEB RL environment",
        version: "1",
        description:
          "Verifiable emotion rewards from AEB's simulated users, for RL trainers. Stateless API: reset returns a signed state token; each step sends it back with the messages so far and the agent's reply. See docs/server.md.",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: authToken === undefined ? [] : [{ bearer: [] }],
    },
    transform: ({ schema, url }) => {
      if (schema === undefined || schema === null) return { schema, url };
      const { body, params, response, ...rest } = schema as Record<string, unknown>;
      const converted: Record<string, unknown> = { ...rest };
      if (body !== undefined) converted.body = jsonSchemaOf(body, "input");
      if (params !== undefined) converted.params = jsonSchemaOf(params, "input");
      if (response !== undefined) {
        converted.response = Object.fromEntries(Object.entries(response as Record<string, unknown>).map(([status, item]) => [status, jsonSchemaOf(item, "output")]));
      }
      return { schema: converted, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  const errors = { "4xx": ErrorBodySchema, "5xx": ErrorBodySchema };

  /** A client that hangs up cancels its step (an LLM user stops its model call). */
  const clientSignal = (reply: FastifyReply): AbortSignal => {
    const controller = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) controller.abort(new DOMException("the client closed the connection", "AbortError"));
    });
    return controller.signal;
  };

  /** Plays a step with metrics; errors propagate to the error handler (or to the batch). */
  const timedStep = async <T extends StepOutcome>(api: StepApi, play: () => Promise<T>): Promise<T> => {
    metrics.stepStarted();
    const started = performance.now();
    try {
      const outcome = await play();
      metrics.stepFinished(api, (performance.now() - started) / 1000, "ok");
      const result = outcome.response;
      metrics.observeResult({ reward: result.reward, rewardMode: outcome.rewardMode, flags: result.flags, endReason: result.endReason });
      return outcome;
    } catch (error) {
      metrics.stepFinished(api, (performance.now() - started) / 1000, EnvironmentError.isInstance(error) ? error.code : "internal");
      throw error;
    }
  };

  app.get("/healthz", { schema: { summary: "Liveness and readiness", tags: ["operations"], security: [], response: { 200: HealthSchema, 503: HealthSchema } } }, async (_request, reply) => {
    return reply.code(closing ? 503 : 200).send({ status: closing ? "shutting_down" : "ok", simulator: environment.simulatorId, scenarios: environment.scenarioCount, uptimeSeconds: Math.round(process.uptime()) });
  });

  app.get("/metrics", { schema: { summary: "Prometheus metrics", tags: ["operations"], hide: false } }, async (_request, reply) => {
    return reply.header("content-type", metrics.registry.contentType).send(await metricsText());
  });

  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  app.get("/v1/scenarios", { schema: { summary: "The scenarios this server plays (visible fields only)", tags: ["environment"], response: { 200: ScenarioListSchema, ...errors } } }, async () => ({
    scenarios: environment.listScenarios(),
  }));

  app.post<{ Body: ResetRequest }>(
    "/v1/reset",
    { schema: { summary: "Start an episode: scenario by id, by type or sampled with a seed", tags: ["environment"], body: ResetRequestSchema, response: { 200: ResetResponseSchema, ...errors } } },
    async (request) => {
      const result = await environment.reset(request.body);
      metrics.countReset(result.preset);
      return result;
    },
  );

  app.post<{ Body: StepRequest }>(
    "/v1/step",
    { schema: { summary: "Play one turn: the user's reply, emotion, reward and the next token", tags: ["environment"], body: StepRequestSchema, response: { 200: StepResponseSchema, ...errors } } },
    async (request, reply) => (await timedStep("stateless", () => environment.step(request.body, clientSignal(reply)))).response,
  );

  app.post<{ Body: { steps: unknown[] } }>(
    "/v1/step/batch",
    {
      bodyLimit: batchBodyLimit,
      schema: {
        summary: `Play up to ${maxBatchSize} steps of independent episodes concurrently; each result is ok or an error of its own`,
        tags: ["environment"],
        body: BatchStepRequestSchema,
        response: { 200: BatchStepResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const signal = clientSignal(reply);
      const results = await Promise.all(
        request.body.steps.map(async (item, index) => {
          try {
            const parsed = StepRequestSchema.safeParse(item);
            if (!parsed.success) {
              throw new EnvironmentError(400, "invalid_request", `invalid step ${index}: ${issuesOf(parsed.error.issues).map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`, {
                issues: issuesOf(parsed.error.issues),
              });
            }
            return { ok: true as const, result: (await timedStep("batch", () => environment.step(parsed.data, signal))).response };
          } catch (error) {
            const failure = toEnvironmentError(error, batchBodyLimit);
            if (failure.status >= 500 && failure.cause !== undefined) request.log.error({ err: failure.cause, code: failure.code }, failure.message);
            metrics.countError(failure.code, failure.status);
            return { ok: false as const, status: failure.status, error: failure.toBody() satisfies ErrorBody };
          }
        }),
      );
      return { results };
    },
  );

  if (options.clusterWorker === true) {
    const unavailable = async () => {
      throw new EnvironmentError(501, "sessions_unavailable", "the session API keeps state in one process and is off with --workers > 1; use the stateless API (/v1/reset, /v1/step)");
    };
    app.all("/v1/sessions", { schema: { hide: true } }, unavailable);
    app.all("/v1/sessions/*", { schema: { hide: true } }, unavailable);
  } else {
    app.post<{ Body: ResetRequest }>(
      "/v1/sessions",
      { schema: { summary: "Start an episode held server-side (simple clients)", tags: ["sessions"], body: ResetRequestSchema, response: { 201: SessionCreatedSchema, ...errors } } },
      async (request, reply) => {
        const reset = await environment.reset(request.body);
        const session = sessions.create(reset);
        metrics.countReset(reset.preset);
        const { token: _token, ...visible } = reset;
        return reply.code(201).send({ sessionId: session.id, idleTimeoutSeconds: Math.round((options.sessionIdleTimeoutMs ?? 600_000) / 1000), ...visible });
      },
    );

    app.post<{ Params: { sessionId: string }; Body: { reply: string } }>(
      "/v1/sessions/:sessionId/step",
      {
        schema: { summary: "Play the session's next turn", tags: ["sessions"], params: SessionParamsSchema, body: SessionStepRequestSchema, response: { 200: SessionStepResponseSchema, ...errors } },
      },
      async (request, reply) => {
        const outcome = await timedStep("session", () => sessions.step(request.params.sessionId, request.body.reply, environment, clientSignal(reply)));
        const { token: _token, ...visible } = outcome.response;
        return { sessionId: outcome.session.id, ...visible };
      },
    );

    app.get<{ Params: { sessionId: string } }>(
      "/v1/sessions/:sessionId",
      { schema: { summary: "The session's conversation and state", tags: ["sessions"], params: SessionParamsSchema, response: { 200: SessionStateSchema, ...errors } } },
      async (request) => {
        const session = sessions.get(request.params.sessionId);
        return {
          sessionId: session.id,
          ...session.episode,
          messages: session.messages,
          emotion: session.emotion,
          turnIndex: session.turnIndex,
          done: session.done,
          endReason: session.endReason,
          totalReward: session.totalReward,
        };
      },
    );

    app.delete<{ Params: { sessionId: string } }>(
      "/v1/sessions/:sessionId",
      { schema: { summary: "End a session and free it", tags: ["sessions"], params: SessionParamsSchema, response: { ...errors } } },
      async (request, reply) => {
        sessions.delete(request.params.sessionId);
        return reply.code(204).send();
      },
    );
  }

  await app.ready();
  sessions.start();

  return {
    app,
    environment,
    sessions,
    metrics,
    async listen({ host, port }) {
      assertSafeBinding(host, authToken);
      await app.listen({ host, port });
      const address = app.server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return `http://${shownHost}:${address.port}`;
    },
    close: () => app.close(),
  };
}
