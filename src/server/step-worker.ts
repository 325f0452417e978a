/**
 * A thread of the step pool (`step-pool.ts`): plays whole `/v1/step/batch` requests off the main
 * event loop. It parses the raw body itself (a 5 MB batch costs tens of milliseconds to parse), checks
 * it with the same schemas as the route, plays each step through its own `Environment` (same
 * scenarios, same secret, the offline simulated user: identical tokens and rewards), and returns
 * the response body ready to send, with what the main thread needs for metrics and the recorder.
 */
import { readlinkSync } from "node:fs";
import { constants, getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import type { StageTiming } from "../episode/dialogue-error.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import { BatchEnvelopeSchema, StepRequestSchema } from "./api-schemas.js";
import { EnvironmentError, issuesOf } from "./environment-error.js";
import { Environment } from "./environment.js";
import type { BatchReply, PoolRequest, StepPoolInit, StepStat } from "./step-pool-protocol.js";

const init = workerData as StepPoolInit;
const port = parentPort;
if (port === null) throw new Error("step-worker.ts runs as a worker thread of the step pool");

/**
 * Batches are background work: when the cores are busy, the event loop (health checks, single
 * steps) should run first. On Linux the nice value is a property of each thread, so this thread
 * lowers its own; elsewhere, or where it is not allowed, it keeps the process's priority.
 */
function yieldToTheEventLoop(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    // Never raise it: a process started with `nice 15` keeps 15 in its threads.
    if (Number.isInteger(threadId) && threadId > 0)
      setPriority(threadId, Math.max(getPriority(threadId), constants.priority.PRIORITY_BELOW_NORMAL));
  } catch {
    // Not Linux, or not permitted.
  }
}
yieldToTheEventLoop();

/** The simulated user's calls during the current step, told by the episode's `onStage`. */
let stageTimings: StageTiming[] = [];

// The one CPU-bound simulated user, rebuilt here (a user object cannot cross to a thread).
const user = new OfflineSimulatedUser();
if (user.id !== init.simulator)
  throw new Error(
    `the step pool's threads play the offline simulated user, but the server runs "${init.simulator}"; start the server without step threads`,
  );
const environment = new Environment({
  scenarios: init.scenarios,
  user,
  secret: Buffer.from(init.secret),
  defaultPreset: init.defaultPreset,
  defaultRewardMode: init.defaultRewardMode,
  stepTimeoutMs: init.stepTimeoutMs,
  onStage: (timing) => void stageTimings.push(timing),
  ...(init.recordCondition !== undefined ? { recording: { condition: init.recordCondition } } : {}),
});
const envelope = BatchEnvelopeSchema.extend({ steps: BatchEnvelopeSchema.shape.steps.max(init.maxBatchSize) });
/** Batches received and not yet answered; a cancellation of any other id is late and ignored. */
const active = new Set<number>();
const cancelled = new Set<number>();

const failure = (error: EnvironmentError) => ({ status: error.status, body: error.toBody(), retryAfterSeconds: error.retryAfterSeconds });

/** The request as a whole: JSON, then the envelope (`steps`, at most the batch size). */
function parseBatch(body: Uint8Array): unknown[] | EnvironmentError {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  if (text.trim() === "") return new EnvironmentError(400, "invalid_json", "the body is empty; send a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return new EnvironmentError(400, "invalid_json", `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object")
    return new EnvironmentError(400, "invalid_request", "the request needs a JSON body (Content-Type: application/json)");
  const parsed = envelope.safeParse(value);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error.issues);
    return new EnvironmentError(
      400,
      "invalid_request",
      `invalid request body: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
      { issues },
    );
  }
  return parsed.data.steps;
}

async function playBatch(id: number, body: Uint8Array): Promise<BatchReply> {
  const steps = parseBatch(body);
  if (steps instanceof EnvironmentError) return { id, requestError: failure(steps) };
  const results: unknown[] = [];
  const stats: StepStat[] = [];
  for (const [index, item] of steps.entries()) {
    // Between steps, let a cancellation (the client went away) or another batch in.
    if (index > 0) await new Promise((resolve) => setImmediate(resolve));
    stageTimings = [];
    const started = performance.now();
    try {
      if (cancelled.has(id))
        throw new EnvironmentError(503, "cancelled", "the step was cancelled (the client went away); the same step may be retried", {
          retryable: true,
        });
      const parsed = StepRequestSchema.safeParse(item);
      if (!parsed.success) {
        const issues = issuesOf(parsed.error.issues);
        throw new EnvironmentError(
          400,
          "invalid_request",
          `invalid step ${index}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
          { issues },
        );
      }
      const outcome = await environment.step(parsed.data);
      results.push({ ok: true, result: outcome.response });
      stats.push({
        outcome: "ok",
        seconds: (performance.now() - started) / 1000,
        stages: stageTimings,
        reward: outcome.response.reward,
        rewardMode: outcome.rewardMode,
        flags: outcome.response.flags,
        endReason: outcome.response.endReason,
        ...(outcome.finished !== undefined ? { finished: outcome.finished } : {}),
      });
    } catch (error) {
      const known = EnvironmentError.isInstance(error)
        ? error
        : new EnvironmentError(500, "internal", "internal error while playing the step", { cause: error });
      results.push({ ok: false, status: known.status, error: known.toBody() });
      stats.push({
        outcome: known.code,
        status: known.status,
        seconds: (performance.now() - started) / 1000,
        stages: stageTimings,
        ...(known.status >= 500 && known.cause !== undefined
          ? { internalCause: String((known.cause as Error)?.stack ?? known.cause) }
          : {}),
      });
    }
  }
  return { id, body: JSON.stringify({ results }), stats };
}

port.on("message", (request: PoolRequest) => {
  if (request.type === "cancel") {
    if (active.has(request.id)) cancelled.add(request.id);
    return;
  }
  active.add(request.id);
  playBatch(request.id, request.body)
    .then(
      (reply) => port.postMessage(reply),
      (error: unknown) => port.postMessage({ id: request.id, crash: String((error as Error)?.stack ?? error) } satisfies BatchReply),
    )
    .finally(() => {
      active.delete(request.id);
      cancelled.delete(request.id);
    });
});
port.postMessage({ ready: true });
