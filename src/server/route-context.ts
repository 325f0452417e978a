import type { FastifyReply } from "fastify";
import type { DialogueRecord } from "../core/dialogue.js";
import { ErrorBodySchema } from "./api-schemas.js";
import { EnvironmentError } from "./environment-error.js";
import type { Environment, StepOutcome } from "./environment.js";
import type { EnvironmentMetrics, StepApi } from "./prometheus-metrics.js";
import type { SessionStore } from "./session-store.js";
import type { StepPool } from "./step-pool.js";

/** What the route modules share: the environment, the step pool, sessions, metrics, the recorder. */
export interface RouteContext {
  environment: Environment;
  metrics: EnvironmentMetrics;
  /** Absent on a cluster worker (the session API is off there). */
  sessions?: SessionStore;
  sessionIdleTimeoutMs: number;
  /** Threads for batches of a CPU-bound simulated user; absent: batches are played on the event loop. */
  pool?: StepPool;
  maxBatchSize: number;
  batchBodyLimit: number;
  /**
   * Writes a finished episode's record with the `--record` writer and resolves once it is on disk;
   * rejects with a retryable 503 `recording_failed` when it could not be written. Absent when not recording.
   */
  recordEpisode?: (record: DialogueRecord) => Promise<void>;
}

/** The error responses every route may give. */
export const ERROR_RESPONSES = { "4xx": ErrorBodySchema, "5xx": ErrorBodySchema };

/** A client that hangs up cancels its step (an LLM user stops its model call). */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new DOMException("the client closed the connection", "AbortError"));
  });
  return controller.signal;
}

/** The metrics of a step that was played (not of a retry answered from memory). */
export function observePlayedStep(context: RouteContext, outcome: StepOutcome): void {
  const result = outcome.response;
  context.metrics.observeResult({
    reward: result.reward,
    rewardMode: outcome.rewardMode,
    flags: result.flags,
    endReason: result.endReason,
  });
}

/**
 * Plays a step and, when it finishes an episode on a recording server, writes the episode's
 * record before resolving: the step is answered only once its record is on disk, and a failed
 * write fails the step (503 `recording_failed`, retryable) so the client sends it again. A
 * session plays through this inside its own step, so a failed write leaves the session where it
 * was and the retry plays the turn again.
 */
export async function playAndRecord(context: RouteContext, play: () => Promise<StepOutcome>): Promise<StepOutcome> {
  const outcome = await play();
  if (outcome.finished !== undefined && context.recordEpisode !== undefined) await context.recordEpisode(outcome.finished);
  return outcome;
}

/** Plays a step with metrics; errors propagate to the error handler (or to the batch). */
export async function timedStep<T extends StepOutcome & { replayed?: boolean }>(
  context: RouteContext,
  api: StepApi,
  play: () => Promise<T>,
): Promise<T> {
  const { metrics } = context;
  metrics.stepStarted();
  const started = performance.now();
  try {
    const outcome = await play();
    metrics.stepFinished(api, (performance.now() - started) / 1000, outcome.replayed === true ? "replayed" : "ok");
    if (outcome.replayed !== true) observePlayedStep(context, outcome);
    return outcome;
  } catch (error) {
    metrics.stepFinished(api, (performance.now() - started) / 1000, EnvironmentError.isInstance(error) ? error.code : "internal");
    throw error;
  }
}
