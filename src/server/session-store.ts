import { randomUUID } from "node:crypto";
import type { EndReason } from "../core/dialogue.js";
import type { Message, ResetResponse } from "./api-schemas.js";
import { EnvironmentError } from "./environment-error.js";
import type { Environment, EpisodeFields, StepOutcome } from "./environment.js";

/** One episode held server-side for simple clients: the latest token and the messages it is bound to. */
export interface Session {
  id: string;
  episode: EpisodeFields;
  token: string;
  messages: Message[];
  emotion: number;
  turnIndex: number;
  done: boolean;
  endReason: EndReason | null;
  totalReward: number;
  /** When the session was last used (ms, from the store's clock). */
  lastUsed: number;
  /** A step is being played; a second one at the same time is refused. */
  busy: boolean;
}

export interface SessionStoreOptions {
  /** A session unused for this long is dropped. */
  idleTimeoutMs: number;
  /** At most this many open sessions; creating one more is refused (503, retryable). */
  maxSessions: number;
  now?: () => number;
}

/**
 * The session API's state, in this replica's memory. Each step goes through the same stateless
 * `Environment.step` with the session's token, so sessions and tokens give the same rewards.
 * Sessions do not survive a restart and live on one replica: route a session's requests to the
 * replica that created it (or use the stateless API, which any replica can serve).
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: SessionStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Drops idle sessions every so often, without keeping the process alive. */
  start(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(30_000, this.options.idleTimeoutMs / 2)));
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  sweep(): number {
    const cutoff = this.now() - this.options.idleTimeoutMs;
    let dropped = 0;
    for (const [id, session] of this.sessions) {
      if (session.lastUsed < cutoff && !session.busy) {
        this.sessions.delete(id);
        dropped += 1;
      }
    }
    return dropped;
  }

  create(reset: ResetResponse): Session {
    if (this.sessions.size >= this.options.maxSessions && this.sweep() === 0) {
      throw new EnvironmentError(503, "too_many_sessions", `this server holds its maximum of ${this.options.maxSessions} sessions; delete finished ones, retry later, or use the stateless API`, {
        retryable: true,
        retryAfterSeconds: 1,
      });
    }
    const session: Session = {
      id: randomUUID(),
      episode: {
        episodeId: reset.episodeId,
        scenario: reset.scenario,
        preset: reset.preset,
        rewardMode: reset.rewardMode,
        seed: reset.seed,
        repeat: reset.repeat,
        episodeSeed: reset.episodeSeed,
        maxTurns: reset.maxTurns,
      },
      token: reset.token,
      messages: [...reset.messages],
      emotion: reset.emotion,
      turnIndex: reset.turnIndex,
      done: reset.done,
      endReason: null,
      totalReward: 0,
      lastUsed: this.now(),
      busy: false,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string): Session {
    const session = this.sessions.get(id);
    if (session === undefined || (session.lastUsed < this.now() - this.options.idleTimeoutMs && !session.busy)) {
      if (session !== undefined) this.sessions.delete(id);
      throw new EnvironmentError(404, "session_not_found", `no session "${id}" on this server (it never existed, was deleted, expired after ${Math.round(this.options.idleTimeoutMs / 1000)} s idle, or lives on another replica)`);
    }
    session.lastUsed = this.now();
    return session;
  }

  delete(id: string): void {
    this.get(id);
    this.sessions.delete(id);
  }

  /** Plays the session's next turn; one step at a time per session. */
  async step(id: string, reply: string, environment: Environment, signal?: AbortSignal): Promise<StepOutcome & { session: Session }> {
    const session = this.get(id);
    if (session.busy) throw new EnvironmentError(409, "session_busy", "a step of this session is still being played; wait for its answer", { retryable: true, retryAfterSeconds: 1 });
    session.busy = true;
    try {
      const outcome = await environment.step({ token: session.token, messages: session.messages, reply }, signal);
      const result = outcome.response;
      session.token = result.token;
      session.messages.push({ role: "assistant", content: reply }, { role: "user", content: result.message });
      session.emotion = result.emotion;
      session.turnIndex = result.turnIndex;
      session.done = result.done;
      session.endReason = result.endReason;
      session.totalReward += result.reward;
      return { ...outcome, session };
    } finally {
      session.busy = false;
      session.lastUsed = this.now();
    }
  }
}
