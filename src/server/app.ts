import type { AddressInfo } from "node:net";
import rateLimit from "@fastify/rate-limit";
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { errorHandling } from "../http/error-handling.js";
import { hostCheck } from "../http/host-check.js";
import { allowedHostNames } from "../http/loopback.js";
import { zodValidation } from "../http/zod-validation.js";
import { BatchEnvelopeSchema, BatchStepRequestSchema } from "./api-schemas.js";
import { assertServerBinding, bearerAuth, FailedAuthLimiter } from "./auth.js";
import { clusterMetricsSource } from "./cluster.js";
import { ConnectionDrain } from "./connection-drain.js";
import { EnvironmentError } from "./environment-error.js";
import { Environment, type EnvironmentOptions } from "./environment.js";
import type { RecorderHealth } from "./episode-recorder.js";
import { EnvironmentMetrics } from "./prometheus-metrics.js";
import { registerOpenApi } from "./openapi.js";
import type { RouteContext } from "./route-context.js";
import { batchRoutes } from "./routes/batch-routes.js";
import { environmentRoutes } from "./routes/environment-routes.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import { sessionRoutes } from "./routes/session-routes.js";
import { serverSettings, type ServerSettings, type ServerSettingsInput } from "./server-options.js";
import { SessionStore } from "./session-store.js";
import { StepPool, type StepPoolOptions } from "./step-pool.js";

export { isLoopbackHost } from "../http/loopback.js";
export { assertServerBinding, MIN_BEARER_TOKEN_CHARS } from "./auth.js";

/**
 * What `buildServer` takes: its parts (scenarios, simulated user, secret, token, recorder, logger)
 * and its settings, each of which may be left out for its default (server-options.ts holds every
 * setting, its default and its `aeb serve` flag).
 */
export interface ServerOptions extends Omit<EnvironmentOptions, "recording" | keyof ServerSettingsInput>, ServerSettingsInput {
  /** Bearer token every request but /healthz and the docs must carry; required (16+ characters) to listen beyond loopback. */
  authToken?: string;
  /** Logger options for fastify (pino); off when absent. The Authorization header is always redacted. */
  logger?: boolean | { level: string };
  /**
   * A worker of `aeb serve --workers N`: /metrics serves the primary's sum over all workers, and the
   * session API (state in one process) is off.
   */
  clusterWorker?: boolean;
  /**
   * The entry module of the threads of `stepThreads` (tests run it from the sources). The threads
   * play batches only for a simulated user that declares itself CPU-bound (`cpuBound`: the offline
   * user); any other's steps wait on I/O and are played on the event loop.
   */
  stepWorker?: StepPoolOptions["worker"];
  /**
   * Record finished episodes: each is handed to `write` as a dialogue record (run-record format),
   * and the step that finished it is answered once `write` resolves: `false` when the episode was
   * already on disk (a retried last step), anything else when it was written now; a rejection
   * answers the step 503 `recording_failed` (retryable). `health` says whether the writer can
   * write (shown on /healthz). `condition` is the record's condition when the reset's tags name none.
   */
  recording?: {
    condition: string;
    write: (record: DialogueRecord) => Promise<boolean | void> | boolean | void;
    health?: () => RecorderHealth;
    drawNonce?: () => string;
  };
}

/** The environment server: a fastify app around one `Environment`, with its sessions and metrics. */
export interface EnvironmentServer {
  app: FastifyInstance;
  environment: Environment;
  /** Absent on a cluster worker. */
  sessions: SessionStore | undefined;
  metrics: EnvironmentMetrics;
  /** The threads playing batches, when there are any. */
  pool: StepPool | undefined;
  /** Listens (refusing a non-loopback host without a long enough bearer token) and returns the base URL. */
  listen(options: { host: string; port: number }): Promise<string>;
  /**
   * Graceful shutdown (SIGTERM): stops accepting connections, answers requests that arrive on open
   * connections with 503 `shutting_down`, lets in-flight requests finish for at most `timeoutMs`,
   * closes every connection and the app. `cutRequests` counts the requests the timeout cut.
   */
  shutdown(timeoutMs: number): Promise<{ cutRequests: number }>;
  /** Closes at once (in-flight requests on open connections may still finish). */
  close(): Promise<void>;
}

/**
 * Builds the HTTP environment (not yet listening). Every request is validated with the zod schemas
 * of `api-schemas.ts`, without coercion and without unknown fields; every error is a JSON body
 * `{ error, code, retryable }` with a 4xx or 5xx status (src/http/). The routes live in `routes/`,
 * each module a fastify plugin. A bad setting is a ConfigError naming it.
 */
export async function buildServer(options: ServerOptions): Promise<EnvironmentServer> {
  const settings = serverSettings(options);
  const { bodyLimitBytes: bodyLimit, maxBatchSize, sessionIdleTimeoutMs } = settings;
  const sessions =
    options.clusterWorker === true
      ? undefined
      : new SessionStore({ idleTimeoutMs: sessionIdleTimeoutMs, maxSessions: settings.maxSessions, maxBytes: settings.sessionMemoryBytes });
  const metrics = new EnvironmentMetrics(
    sessions === undefined ? {} : { sessions: () => sessions.size, sessionBytes: () => sessions.bytes },
  );
  const recording = options.recording;
  const environment = new Environment({
    ...options,
    defaultPreset: settings.defaultPreset,
    defaultRewardMode: settings.defaultRewardMode,
    stepTimeoutMs: settings.stepTimeoutMs,
    onStage: (timing) => metrics.observeSimulatorCall(timing),
    recording: recording === undefined ? undefined : { condition: recording.condition, drawNonce: recording.drawNonce },
  });
  const authToken = options.authToken === "" ? undefined : options.authToken;
  const metricsText = options.clusterWorker === true ? clusterMetricsSource(metrics.registry) : () => metrics.registry.metrics();
  let log: (message: string) => void = (message) => console.error(message);
  const pool =
    settings.stepThreads > 0 && options.user.cpuBound === true ? startPool(options, settings, (message) => log(message)) : undefined;
  try {
    await pool?.ready();
  } catch (error) {
    await pool?.close();
    throw error;
  }
  let closing = false;

  const logger: FastifyServerOptions["logger"] =
    options.logger === undefined || options.logger === false
      ? false
      : { level: options.logger === true ? "info" : options.logger.level, redact: ["req.headers.authorization"] };
  const requestTimeout = settings.requestTimeoutMs;
  const app = Fastify({
    logger,
    bodyLimit,
    requestTimeout,
    // Node enforces both timeouts only when it checks its connections, every 30 s by default.
    http: { headersTimeout: requestTimeout, requestTimeout, connectionsCheckingInterval: Math.min(250, requestTimeout) },
    logController: new LogController({ disableRequestLogging: !settings.logRequests }),
    trustProxy: settings.trustProxy,
    return503OnClosing: false,
    // Connections are closed by ConnectionDrain at shutdown, after their requests are answered.
    forceCloseConnections: false,
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.server.maxConnections = settings.maxConnections;
  const drain = new ConnectionDrain(app.server);
  /** Set by listen() on a loopback address: the Host names this server answers. */
  let allowedHosts: ReadonlySet<string> | undefined;
  log = (message) => app.log.error(message);

  // JSON only: a text body is refused (415) rather than validated as a string.
  app.removeContentTypeParser("text/plain");
  const overrides = new Map<unknown, z.ZodType>([
    [BatchStepRequestSchema, BatchEnvelopeSchema.extend({ steps: BatchEnvelopeSchema.shape.steps.max(maxBatchSize) })],
  ]);
  await app.register(zodValidation, { overrides });
  await app.register(errorHandling, {
    notFoundMessage: (method, path) => `no route ${method} ${path} (see /docs)`,
    onFailure: (failure) => metrics.countError(failure.code, failure.status),
  });
  await app.register(hostCheck, {
    allowedHosts: () => allowedHosts,
    refusal:
      "this server listens on loopback and answers only requests addressed to this machine (Host 127.0.0.1, localhost or [::1]; others with --allow-host)",
  });

  // Callback-style hooks: no promise per request on the hot path.
  app.addHook("onRequest", (request, _reply, done) => {
    if (closing && request.url !== "/healthz") {
      return done(
        new EnvironmentError(503, "shutting_down", "this server is shutting down; send the request to another replica or retry", {
          retryable: true,
          retryAfterSeconds: 1,
        }),
      );
    }
    done();
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    // While draining, every answer closes its connection: the client reconnects to another replica.
    if (closing) void reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("onResponse", (request, reply, done) => {
    metrics.observeRequest(request.routeOptions.url ?? "unmatched", request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onClose", async () => {
    sessions?.stop();
    await pool?.close();
  });

  const windowMs = settings.rateWindowMs;
  if (settings.rateLimit > 0) {
    await app.register(rateLimit, {
      max: settings.rateLimit,
      timeWindow: windowMs,
      allowList: (request) => request.url === "/healthz",
      errorResponseBuilder: (_request, context) =>
        new EnvironmentError(
          429,
          "rate_limited",
          `too many requests: at most ${context.max} per ${Math.round(windowMs / 1000)} s from one client; retry in ${context.after}`,
          {
            retryable: true,
            retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
          },
        ),
    });
  }
  if (authToken !== undefined) {
    await app.register(bearerAuth, {
      authToken,
      failures: new FailedAuthLimiter({ max: settings.authFailureLimit, windowMs }),
    });
  }
  await registerOpenApi(app, { authRequired: authToken !== undefined });

  const context: RouteContext = {
    environment,
    metrics,
    sessions,
    sessionIdleTimeoutMs,
    pool,
    maxBatchSize,
    batchBodyLimit: settings.batchBodyLimitBytes,
    recordEpisode:
      recording === undefined
        ? undefined
        : async (record) => {
            let written: boolean | void;
            try {
              written = await recording.write(record);
            } catch (error) {
              app.log.error(
                { err: error, episode: record.id },
                "could not record a finished episode; its last step is answered 503 recording_failed (retryable)",
              );
              throw new EnvironmentError(
                503,
                "recording_failed",
                `this server could not record the finished episode (${describeRecordingFailure(error)}); the step was not acknowledged: send it again (the episode is recorded once)`,
                { retryable: true, retryAfterSeconds: 1, cause: error },
              );
            }
            // Counted once on disk; a retried last step whose episode was already written is not counted again.
            if (written !== false) metrics.countRecorded();
          },
  };
  await app.register(operationsRoutes, {
    context,
    isClosing: () => closing,
    metricsText,
    ...(recording?.health !== undefined ? { recorderHealth: recording.health } : {}),
  });
  await app.register(environmentRoutes, context);
  await app.register(batchRoutes, context);
  await app.register(sessionRoutes, context);

  await app.ready();
  sessions?.start();

  return {
    app,
    environment,
    sessions,
    metrics,
    pool,
    async listen({ host, port }) {
      assertServerBinding(host, authToken);
      allowedHosts = allowedHostNames(host, settings.allowedHosts);
      await app.listen({ host, port });
      const address = app.server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return `http://${shownHost}:${address.port}`;
    },
    async shutdown(timeoutMs) {
      closing = true;
      const { cut } = await drain.drain(timeoutMs);
      await app.close();
      return { cutRequests: cut };
    },
    close: () => app.close(),
  };
}

/** What the client is told of a failed write: the errno code and the kind of failure, never a path of the server. */
function describeRecordingFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOSPC" || code === "EDQUOT") return "its disk is full";
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return `a file-system error, ${code}`;
  return "the recorder is unavailable";
}

function startPool(options: ServerOptions, settings: ServerSettings, log: (message: string) => void): StepPool {
  return new StepPool({
    threads: settings.stepThreads,
    worker: options.stepWorker,
    log,
    init: {
      simulator: options.user.id,
      scenarios: options.scenarios,
      secret: typeof options.secret === "string" ? new Uint8Array(Buffer.from(options.secret, "utf8")) : new Uint8Array(options.secret),
      defaultPreset: settings.defaultPreset,
      defaultRewardMode: settings.defaultRewardMode,
      stepTimeoutMs: settings.stepTimeoutMs,
      maxBatchSize: settings.maxBatchSize,
      ...(options.recording !== undefined ? { recordCondition: options.recording.condition } : {}),
    },
  });
}
