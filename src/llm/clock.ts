/**
 * Time and randomness as injectable dependencies.
 *
 * Why: retry back-off, Retry-After handling and latency accounting must be
 * testable without real waiting and without flaky assertions on wall-clock
 * durations. Production code uses {@link systemClock}, {@link abortableSleep}
 * and `Math.random`; tests pass fakes that record the requested waits.
 */

/** Source of "now" in epoch milliseconds (used for latency and HTTP-date Retry-After). */
export interface Clock {
  now(): number;
}

/** Waits `ms` milliseconds; must reject promptly when `signal` aborts. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Uniform random number in [0, 1). */
export type RandomFn = () => number;

export const systemClock: Clock = { now: () => Date.now() };

/** `setTimeout` as a promise that rejects with the signal's reason on abort. */
export const abortableSleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
