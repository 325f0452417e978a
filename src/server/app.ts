import type { AddressInfo } from "node:net";
import rateLimit from "@fastify/rate-limit";
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { BatchEnvelopeSchema, BatchStepRequestSchema } from "./api-schemas.js";
import { assertSafeBinding, FailedAuthLimiter, isLoopbackHost, registerBearerAuth } from "./auth.js";
import { clusterMetricsSource } from "./cluster.js";
import { ConnectionDrain } from "./connection-drain.js";
import { EnvironmentError } from "./environment-error.js";
import { Environment, type EnvironmentOptions } from "./environment.js";
import { registerErrorHandling, registerValidation } from "./http-errors.js";
import type { RecorderHealth } from "./episode-recorder.js";
import { EnvironmentMetrics } from "./prometheus-metrics.js";
import { registerOpenApi } from "./openapi.js";
import type { RouteContext } from "./route-context.js";
import { registerBatchRoutes } from "./routes/batch-routes.js";
import { registerEnvironmentRoutes } from "./routes/environment-routes.js";
import { registerOperationsRoutes } from "./routes/operations-routes.js";
import { registerSessionRoutes } from "./routes/session-routes.js";
import { SessionStore } from "./session-store.js";
import { StepPool, type StepPoolOptions } from "./step-pool.js";

export { assertSafeBinding, isLoopbackHost, MIN_BEARER_TOKEN_CHARS } from "./auth.js";

export interface ServerOptions extends Omit<EnvironmentOptions, "recording"> {
  /** Bearer token every request but /healthz and the docs must carry; required (16+ characters) to listen beyond loopback. */
  authToken?: string;
  /** Largest request body, in bytes; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Largest body of a batched step, in bytes; default 8 MiB. */
  batchBodyLimitBytes?: number;
  /** Most steps in one batch; default 256. */
  maxBatchSize?: number;
  /** Requests per client (IP) and window; null turns rate limiting off. Default 600,000 per minute. */
  rateLimit?: { max: number; windowMs: number } | null;
  /** Failed authentications per client and rate-limit window before its requests are refused (429) until the window ends; default 30. */
  authFailureLimit?: number;
  /** A session unused this long is dropped; default 10 minutes. */
  sessionIdleTimeoutMs?: number;
  /** Most open sessions; default 10,000. */
  maxSessions?: number;
  /** Memory the sessions may hold, in bytes (estimated); default 1 GiB. */
  sessionMemoryBytes?: number;
  /**
   * Time to receive a whole request, headers included (Node's requestTimeout and headersTimeout);
   * default 60 s. Enforced within a quarter of a second (Node checks every 30 s by default), so a
   * slow client (slowloris) is answered 408 and disconnected on time.
   */
  requestTimeoutMs?: number;
  /** Most open connections; beyond it new ones are closed at once. Default 10,000. */
  maxConnections?: number;
  /**
   * On loopback, Host names accepted besides 127.0.0.1, localhost and [::1] (a reverse proxy on this
   * machine that forwards its own Host); any other Host is refused with 421, so a web page that
   * rebinds its DNS name to 127.0.0.1 cannot drive the server. Beyond loopback every Host is accepted
   * (the bearer token guards the server there).
   */
  allowedHosts?: readonly string[];
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
  /**
   * Threads that play `/v1/step/batch` off the event loop, for a simulated user that declares itself
   * CPU-bound (`cpuBound`: the offline user); 0 (the default) plays batches on the event loop.
   * Ignored for any other simulated user, whose steps wait on I/O. `worker` overrides the thread's entry module (tests run it from the sources).
   */
  stepThreads?: number;
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
 * `{ error, code, retryable }` with a 4xx or 5xx status. The routes live in `routes/`.
 */
export async function buildServer(options: ServerOptions): Promise<EnvironmentServer> {
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const maxBatchSize = options.maxBatchSize ?? 256;
  const sessionIdleTimeoutMs = options.sessionIdleTimeoutMs ?? 10 * 60_000;
  const sessions =
    options.clusterWorker === true
      ? undefined
      : new SessionStore({
          idleTimeoutMs: sessionIdleTimeoutMs,
          maxSessions: options.maxSessions ?? 10_000,
          maxBytes: options.sessionMemoryBytes,
        });
  const metrics = new EnvironmentMetrics(
    sessions === undefined ? {} : { sessions: () => sessions.size, sessionBytes: () => sessions.bytes },
  );
  const recording = options.recording;
  const environment = new Environment({
    ...options,
    onStage: (timing) => metrics.observeSimulatorCall(timing),
    recording: recording === undefined ? undefined : { condition: recording.condition, drawNonce: recording.drawNonce },
  });
  const authToken = options.authToken === "" ? undefined : options.authToken;
  const metricsText = options.clusterWorker === true ? clusterMetricsSource(metrics.registry) : () => metrics.registry.metrics();
  let log: (message: string) => void = (message) => console.error(message);
  const pool =
    (options.stepThreads ?? 0) > 0 && options.user.cpuBound === true
      ? startPool(options, maxBatchSize, (message) => log(message))
      : undefined;
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
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    logger,
    bodyLimit,
    requestTimeout,
    // Node enforces both timeouts only when it checks its connections, every 30 s by default.
    http: { headersTimeout: requestTimeout, requestTimeout, connectionsCheckingInterval: Math.min(250, requestTimeout) },
    logController: new LogController({ disableRequestLogging: options.logRequests !== true }),
    trustProxy: options.trustProxy ?? false,
    return503OnClosing: false,
    // Connections are closed by ConnectionDrain at shutdown, after their requests are answered.
    forceCloseConnections: false,
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.server.maxConnections = options.maxConnections ?? 10_000;
  const drain = new ConnectionDrain(app.server);
  /** Set by listen() on a loopback address: the Host names this server answers. */
  let allowedHosts: Set<string> | undefined;
  log = (message) => app.log.error(message);

  // JSON only: a text body is refused (415) rather than validated as a string.
  app.removeContentTypeParser("text/plain");
  const overrides = new Map<unknown, z.ZodType>([
    [BatchStepRequestSchema, BatchEnvelopeSchema.extend({ steps: BatchEnvelopeSchema.shape.steps.max(maxBatchSize) })],
  ]);
  registerValidation(app, overrides);
  registerErrorHandling(app, metrics, bodyLimit);

  // Callback-style hooks: no promise per request on the hot path.
  app.addHook("onRequest", (request, reply, done) => {
    if (allowedHosts !== undefined && !allowedHosts.has(hostName(request.headers.host))) {
      return done(
        new EnvironmentError(
          421,
          "misdirected_request",
          "this server listens on loopback and answers only requests addressed to this machine (Host 127.0.0.1, localhost or [::1]; others with --allow-host)",
        ),
      );
    }
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

  const limit = options.rateLimit === null ? null : (options.rateLimit ?? { max: 600_000, windowMs: 60_000 });
  if (limit !== null) {
    await app.register(rateLimit, {
      max: limit.max,
      timeWindow: limit.windowMs,
      allowList: (request) => request.url === "/healthz",
      errorResponseBuilder: (_request, context) =>
        new EnvironmentError(
          429,
          "rate_limited",
          `too many requests: at most ${context.max} per ${Math.round(limit.windowMs / 1000)} s from one client; retry in ${context.after}`,
          {
            retryable: true,
            retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
          },
        ),
    });
  }
  if (authToken !== undefined) {
    registerBearerAuth(app, {
      authToken,
      failures: new FailedAuthLimiter({ max: options.authFailureLimit ?? 30, windowMs: limit?.windowMs ?? 60_000 }),
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
    batchBodyLimit: options.batchBodyLimitBytes ?? 8 * 1024 * 1024,
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
  registerOperationsRoutes(app, context, {
    isClosing: () => closing,
    metricsText,
    ...(recording?.health !== undefined ? { recorderHealth: recording.health } : {}),
  });
  registerEnvironmentRoutes(app, context);
  await registerBatchRoutes(app, context);
  registerSessionRoutes(app, context);

  await app.ready();
  sessions?.start();

  return {
    app,
    environment,
    sessions,
    metrics,
    pool,
    async listen({ host, port }) {
      assertSafeBinding(host, authToken);
      if (isLoopbackHost(host))
        allowedHosts = new Set([
          "127.0.0.1",
          "localhost",
          "[::1]",
          host.toLowerCase(),
          ...(options.allowedHosts ?? []).map((name) => name.toLowerCase()),
        ]);
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

/** The name part of a Host header, lower case (`[::1]:8787` -> `[::1]`, `Example.org:80` -> `example.org`). */
function hostName(header: string | undefined): string {
  if (header === undefined) return "";
  const lower = header.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.lastIndexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

function startPool(options: ServerOptions, maxBatchSize: number, log: (message: string) => void): StepPool {
  return new StepPool({
    threads: options.stepThreads as number,
    worker: options.stepWorker,
    log,
    init: {
      simulator: options.user.id,
      scenarios: options.scenarios,
      secret: typeof options.secret === "string" ? new Uint8Array(Buffer.from(options.secret, "utf8")) : new Uint8Array(options.secret),
      defaultPreset: options.defaultPreset ?? "rlver",
      defaultRewardMode: options.defaultRewardMode ?? "final",
      stepTimeoutMs: options.stepTimeoutMs ?? 60_000,
      maxBatchSize,
      ...(options.recording !== undefined ? { recordCondition: options.recording.condition } : {}),
    },
  });
}
