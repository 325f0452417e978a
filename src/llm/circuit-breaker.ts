/**
 * A circuit breaker for one model endpoint: when it keeps failing as a dead or overloaded server
 * does (connection refused or reset, timeouts, 5xx), calls stop spending their retries against it
 * and wait; one probe request at a time checks whether it is back. A success closes the breaker
 * and every waiting call goes on. If the outage outlasts `maxWaitMs`, waiting calls fail with a
 * {@link ModelOutageError}, which a run treats as a reason to stop cleanly (keeping what
 * finished), not as a failure of each dialogue.
 *
 * Why: a model server restarted mid-run (an OOM, a node drained, a deploy) is ordinary in long
 * benchmark runs; without a breaker every in-flight dialogue burns its retry budget within seconds
 * and ends as an error that must be rerun.
 */
import type { Clock, SleepFn } from "./clock.js";
import { ModelOutageError, type ModelCallError, type ModelCallErrorOptions } from "./errors.js";

export { ModelOutageError } from "./errors.js";

export interface CircuitBreakerPolicy {
  /** Outage-like failures in a row (with no success between) that open the breaker. */
  failures: number;
  /** While open, how often one probe request is let through. */
  probeIntervalMs: number;
  /** How long calls wait for the endpoint to come back before they fail with a ModelOutageError. */
  maxWaitMs: number;
}

/** Whether a failure looks like the server being down or overloaded (as opposed to a bad request or a bad reply). */
export function isOutageFailure(error: ModelCallError): boolean {
  if (error.kind === "connection" || error.kind === "timeout") return true;
  return error.kind === "http" && error.status !== undefined && error.status >= 500;
}

/** What an admitted attempt is: an ordinary one, or the probe of an open breaker. */
export interface BreakerTicket {
  probe: boolean;
}

export type AttemptVerdict = "success" | "outage" | "other-failure" | "cancelled";

export interface BreakerEvents {
  /** The breaker opened: calls now wait (`reason` is the last failure). */
  onOpen?(info: { reason: string; maxWaitMs: number }): void;
  /** The endpoint answered again after `downMs`. */
  onClose?(info: { downMs: number }): void;
  /** The outage outlasted `maxWaitMs`: waiting calls now fail with this error (told once per outage). */
  onGiveUp?(error: ModelOutageError): void;
}

export class CircuitBreaker {
  #consecutive = 0;
  #openedAt: number | undefined;
  #nextProbeAt = 0;
  #probeInFlight = false;
  #lastFailure = "";
  #gaveUp = false;
  /** Waiters woken when the state changes. */
  #wake: Array<() => void> = [];

  constructor(
    private readonly policy: CircuitBreakerPolicy,
    private readonly clock: Clock,
    private readonly sleep: SleepFn,
    private readonly errorBase: Omit<ModelCallErrorOptions, "isRetryable">,
    private readonly events: BreakerEvents = {},
  ) {}

  get open(): boolean {
    return this.#openedAt !== undefined;
  }

  /**
   * Resolves when an attempt may be sent: at once while the breaker is closed; while it is open,
   * when this caller becomes the probe or the breaker closes. Rejects with a ModelOutageError once
   * the outage has lasted `maxWaitMs`, or with the signal's reason when the caller aborts.
   */
  async admit(signal: AbortSignal | undefined): Promise<BreakerTicket> {
    for (;;) {
      if (this.#openedAt === undefined) return { probe: false };
      const now = this.clock.now();
      const downMs = now - this.#openedAt;
      if (downMs >= this.policy.maxWaitMs) {
        const error = new ModelOutageError(
          `endpoint still failing after ${Math.round(downMs / 1000)} s (calls waited since ${this.policy.failures} failures in a row; last: ${this.#lastFailure})`,
          this.errorBase,
        );
        if (!this.#gaveUp) {
          this.#gaveUp = true;
          this.events.onGiveUp?.(error);
        }
        throw error;
      }
      if (!this.#probeInFlight && now >= this.#nextProbeAt) {
        this.#probeInFlight = true;
        return { probe: true };
      }
      const until = Math.min(
        this.#probeInFlight ? this.policy.probeIntervalMs : this.#nextProbeAt - now,
        this.#openedAt + this.policy.maxWaitMs - now,
      );
      await this.#waitForChange(Math.max(1, until), signal);
    }
  }

  /** Tells the breaker how an admitted attempt went. */
  report(ticket: BreakerTicket, verdict: AttemptVerdict, reason = ""): void {
    if (ticket.probe) this.#probeInFlight = false;
    if (verdict === "cancelled") {
      this.#notify();
      return;
    }
    if (verdict === "success" || verdict === "other-failure") {
      // Any answer that is not an outage shows the server is up.
      this.#consecutive = 0;
      if (this.#openedAt !== undefined) {
        const downMs = this.clock.now() - this.#openedAt;
        this.#openedAt = undefined;
        this.#gaveUp = false;
        this.events.onClose?.({ downMs });
      }
      this.#notify();
      return;
    }
    this.#consecutive += 1;
    this.#lastFailure = reason;
    if (this.#openedAt === undefined && this.#consecutive >= this.policy.failures) {
      this.#openedAt = this.clock.now();
      this.events.onOpen?.({ reason, maxWaitMs: this.policy.maxWaitMs });
    }
    if (this.#openedAt !== undefined && ticket.probe) this.#nextProbeAt = this.clock.now() + this.policy.probeIntervalMs;
    this.#notify();
  }

  #notify(): void {
    const waiters = this.#wake;
    this.#wake = [];
    for (const wake of waiters) wake();
  }

  /** Waits until the state changes or `ms` pass, whichever comes first. */
  async #waitForChange(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const woken = new Promise<void>((resolve) => this.#wake.push(resolve));
    // The sleep rejects when cut short (woken, or the caller aborted); either way the race is over.
    const slept = this.sleep(ms, controller.signal).catch(() => undefined);
    try {
      await Promise.race([woken, slept]);
    } finally {
      controller.abort();
      signal?.removeEventListener("abort", onAbort);
    }
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
  }
}
