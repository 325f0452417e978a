/**
 * The retry layer of a model call: attempts go to the least-loaded replica with a free slot
 * (ReplicaPool), a retry prefers another replica, transient failures are retried with full-jitter
 * back-off or the server's Retry-After (retry-policy.ts), and the endpoint's circuit breaker
 * (circuit-breaker.ts) holds attempts back while the endpoint is down, so an outage does not
 * spend the retry budget.
 *
 * Retry rules: 408/409/429/5xx, timeouts, connection failures, truncated streams and in-stream
 * server errors are retried up to `maxRetries` times; other 4xx fail at once. An empty completion
 * is retried ONCE (a sampled model occasionally emits nothing, and one resample usually fixes it;
 * more just burns GPU time on a deterministic failure), and not at all when the budget went to the
 * token limit (finish reason "length").
 */
import type { RandomFn, SleepFn } from "./clock.js";
import type { BreakerTicket, CircuitBreaker } from "./circuit-breaker.js";
import { isOutageFailure } from "./circuit-breaker.js";
import {
  ModelAbortedError,
  ModelCallError,
  ModelEmptyCompletionError,
  ModelHttpError,
  ModelOutageError,
  type ModelCallErrorOptions,
} from "./errors.js";
import type { ReplicaLease, ReplicaPool } from "./replica-pool.js";
import { retryDelayMs, type BackoffPolicy } from "./retry-policy.js";

export interface RetryingCall<R, T> {
  pool: ReplicaPool<R>;
  breaker: CircuitBreaker;
  policy: BackoffPolicy & { maxRetries: number };
  sleep: SleepFn;
  random: RandomFn;
  /** One attempt on one replica; throws a ModelCallError (anything else is mapped by `toModelError`). */
  attempt(replica: R, signal: AbortSignal | undefined): Promise<T>;
  /** Turns whatever an attempt threw into a ModelCallError. */
  toModelError(thrown: unknown, replica: R): ModelCallError;
  /** Told before each request is sent (for accounting); `retry` when it repeats a failed one. */
  onRequest(retry: boolean): void;
  /** What errors name, for one replica's endpoint (or every endpoint, as a list). */
  errorBase(endpoint?: R): Omit<ModelCallErrorOptions, "isRetryable">;
}

/** Runs attempts until one succeeds or the failure is final; resolves with the result and the replica that gave it. */
export async function callWithRetries<R, T>(call: RetryingCall<R, T>, signal: AbortSignal | undefined): Promise<{ result: T; replica: R }> {
  let retries = 0;
  let requests = 0;
  let emptyRetried = false;
  let avoid: number | undefined;
  for (;;) {
    let ticket: BreakerTicket;
    try {
      ticket = await call.breaker.admit(signal);
    } catch (error) {
      if (ModelOutageError.isInstance(error)) throw error.markExhausted(requests);
      throw new ModelAbortedError("call cancelled while the endpoint was down", call.errorBase()).markExhausted(Math.max(1, requests));
    }
    let lease: ReplicaLease<R>;
    try {
      lease = await call.pool.acquire({ avoid, signal });
    } catch {
      call.breaker.report(ticket, "cancelled");
      throw new ModelAbortedError("call cancelled while waiting for a free slot", call.errorBase()).markExhausted(retries + 1);
    }

    call.onRequest(requests > 0);
    requests += 1;
    let outcome: { ok: true; result: T } | { ok: false; error: ModelCallError };
    try {
      outcome = { ok: true, result: await call.attempt(lease.replica, signal) };
    } catch (thrown) {
      outcome = { ok: false, error: ModelCallError.isInstance(thrown) ? thrown : call.toModelError(thrown, lease.replica) };
    } finally {
      lease.release();
    }
    if (outcome.ok) {
      call.breaker.report(ticket, "success");
      return { result: outcome.result, replica: lease.replica };
    }

    const { error } = outcome;
    if (ModelAbortedError.isInstance(error)) {
      call.breaker.report(ticket, "cancelled");
      throw error.markExhausted(requests);
    }
    const outage = isOutageFailure(error);
    call.breaker.report(
      ticket,
      outage ? "outage" : "other-failure",
      error.status !== undefined ? `${error.name}, HTTP ${error.status}` : error.name,
    );
    // While the breaker is open the endpoint is down: wait for it (in admit) without spending the budget.
    if (outage && call.breaker.open) {
      avoid = lease.index;
      continue;
    }
    const isEmpty = ModelEmptyCompletionError.isInstance(error);
    const mayRetry = error.isRetryable && retries < call.policy.maxRetries && !(isEmpty && emptyRetried);
    if (!mayRetry) throw error.markExhausted(requests);
    if (isEmpty) emptyRetried = true;
    const delay = retryDelayMs(retries, ModelHttpError.isInstance(error) ? error.retryAfterMs : undefined, call.policy, call.random);
    retries += 1;
    avoid = lease.index;
    try {
      await call.sleep(delay, signal);
    } catch {
      const last = error.status !== undefined ? `${error.name}, HTTP ${error.status}` : error.name;
      throw new ModelAbortedError(
        `call cancelled during retry back-off (last failure: ${last})`,
        call.errorBase(lease.replica),
      ).markExhausted(requests);
    }
    if (signal?.aborted) throw new ModelAbortedError("call cancelled during retry back-off", call.errorBase()).markExhausted(requests);
  }
}
