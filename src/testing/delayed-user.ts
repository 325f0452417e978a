import { setTimeout as sleep } from "node:timers/promises";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import type { Appraisal, AppraisalInput, OpeningInput, ReplyInput, SimulatedUser, UserReply } from "../simulated-user/simulated-user.js";

export interface DelayedUserOptions {
  /** The user whose answers are returned; default the offline user. */
  inner?: SimulatedUser;
  /** Latency added to every call (appraise and reply), in ms, like a model call. */
  latencyMs: number;
  id?: string;
}

/**
 * A stand-in for an LLM simulated user, for tests and the server benchmark: it answers as its inner
 * user does, after a fixed latency per call, and can be told to fail its next calls (as a model
 * endpoint that is down). Measuring the server with it isolates the server's own per-step overhead:
 * step latency minus the time spent inside this user.
 */
export class DelayedSimulatedUser implements SimulatedUser {
  readonly id: string;
  private readonly inner: SimulatedUser;
  private pendingFailures: Array<{ stage: "appraise" | "reply" | "any"; make: () => Error }> = [];
  /** Calls made so far, by stage. */
  readonly calls = { appraise: 0, reply: 0 };

  constructor(private readonly options: DelayedUserOptions) {
    this.inner = options.inner ?? new OfflineSimulatedUser();
    this.id = options.id ?? "mock-latency";
  }

  /** The next `count` calls (of one stage, or any) throw the error `make` builds (e.g. one with `isRetryable: true`). */
  failNext(count: number, make: () => Error, stage: "appraise" | "reply" | "any" = "any"): void {
    for (let index = 0; index < count; index += 1) this.pendingFailures.push({ stage, make });
  }

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    this.calls.appraise += 1;
    await this.wait(input.signal, "appraise");
    return this.inner.appraise(input);
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    this.calls.reply += 1;
    await this.wait(input.signal, "reply");
    return this.inner.reply(input);
  }

  /** The inner user's opening, without added latency (written once per reset, when a scenario has none). */
  async open(input: OpeningInput): Promise<string> {
    if (this.inner.open === undefined) throw new Error(`simulated user "${this.inner.id}" cannot write an opening`);
    return this.inner.open(input);
  }

  private async wait(signal: AbortSignal | undefined, stage: "appraise" | "reply"): Promise<void> {
    if (this.options.latencyMs > 0) await sleep(this.options.latencyMs, undefined, signal === undefined ? undefined : { signal });
    const index = this.pendingFailures.findIndex((failure) => failure.stage === stage || failure.stage === "any");
    if (index !== -1) {
      const [failure] = this.pendingFailures.splice(index, 1);
      throw failure!.make();
    }
  }
}

/** An error shaped like the model client's: a name, a message and `isRetryable`. */
export class SimulatedModelError extends Error {
  override readonly name = "SimulatedModelError";
  constructor(
    message: string,
    readonly isRetryable: boolean,
  ) {
    super(message);
  }
}
