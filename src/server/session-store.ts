import { randomUUID } from "node:crypto";
import type { EndReason } from "../core/dialogue.js";
import type { Message, ResetResponse, StepResponse } from "./api-schemas.js";
import { EnvironmentError } from "./environment-error.js";
import { SERVER_DEFAULTS } from "./server-options.js";
import type { EpisodeFields, StepOutcome } from "./environment.js";

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
  /** The step being played: a retry of it (same turn, same reply) waits for its answer. */
  inFlight?: { turnIndex: number; reply: string; answer: Promise<SessionStepOutcome> };
  /** The last step played, to answer a retry of it with the same result. */
  lastStep?: { turnIndex: number; reply: string; outcome: SessionStepOutcome };
  /** Estimated memory held, in bytes (see `sessionBytes`). */
  bytes: number;
}

export interface SessionStepOutcome extends StepOutcome {
  session: Session;
  /** True when this answers a retry with the result recorded for the same step. */
  replayed: boolean;
}

export interface SessionStoreOptions {
  /** A session unused for this long is dropped. */
  idleTimeoutMs: number;
  /** At most this many open sessions; creating one more is refused (503, retryable). */
  maxSessions: number;
  /**
   * Memory the sessions may hold, in bytes (estimated: see `sessionBytes`). A new session is refused
   * once 90% is used, keeping the rest for the steps of open sessions; a step is refused only if it
   * would go beyond the budget. Default `SERVER_DEFAULTS.sessionMemoryBytes` (server-options.ts).
   */
  maxBytes?: number;
  now?: () => number;
}

/** Share of the memory budget new sessions may fill; the rest is kept for steps of open sessions. */
const CREATE_SHARE = 0.9;
/** Bookkeeping of one session beyond its strings (objects, maps, the episode fields), estimated. */
const SESSION_OVERHEAD_BYTES = 2048;
/** What the user's reply to a step may add at most, for the check before the step is played. */
const USER_REPLY_ALLOWANCE_BYTES = 8 * 1024;

/**
 * Estimated bytes a session holds: its strings at two bytes per UTF-16 code unit (the messages, the
 * token) plus a fixed overhead. An estimate, not a measurement, but it grows as the session does,
 * which is what the budget needs.
 */
export function sessionBytes(session: Pick<Session, "messages" | "token">): number {
  let chars = session.token.length;
  for (const message of session.messages) chars += message.content.length;
  return SESSION_OVERHEAD_BYTES + 2 * chars;
}

/**
 * The session API's state, in this replica's memory. Each step goes through the same stateless
 * `Environment.step` with the session's token, so sessions and tokens give the same rewards.
 * Sessions do not survive a restart and live on one replica: route a session's requests to the
 * replica that created it (or use the stateless API, which any replica can serve).
 *
 * Steps are idempotent: each names the turn it answers (`turnIndex`). The current turn is played
 * once; a retry of it while it is being played waits for the same answer, and a retry after gets
 * the recorded one; a step for an older turn, or the same turn with another reply, is refused (409).
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly now: () => number;
  private readonly maxBytes: number;
  private sweeper: NodeJS.Timeout | undefined;
  private heldBytes = 0;

  constructor(private readonly options: SessionStoreOptions) {
    this.now = options.now ?? Date.now;
    this.maxBytes = options.maxBytes ?? SERVER_DEFAULTS.sessionMemoryBytes;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Estimated memory the open sessions hold, in bytes. */
  get bytes(): number {
    return this.heldBytes;
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
      if (session.lastUsed < cutoff && session.inFlight === undefined) {
        this.remove(id);
        dropped += 1;
      }
    }
    return dropped;
  }

  create(reset: ResetResponse): Session {
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
      bytes: 0,
    };
    session.bytes = sessionBytes(session);
    const full = () => this.sessions.size >= this.options.maxSessions || this.heldBytes + session.bytes > CREATE_SHARE * this.maxBytes;
    if (full() && (this.sweep(), full())) {
      const which =
        this.sessions.size >= this.options.maxSessions
          ? `its maximum of ${this.options.maxSessions} sessions`
          : `${Math.round(CREATE_SHARE * 100)}% of its session memory budget (${formatMebibytes(this.maxBytes)}; about ${formatMebibytes(this.heldBytes)} held by ${this.sessions.size} sessions)`;
      throw new EnvironmentError(
        503,
        "too_many_sessions",
        `this server holds ${which}; delete finished sessions, retry later, or use the stateless API`,
        { retryable: true, retryAfterSeconds: 1 },
      );
    }
    this.sessions.set(session.id, session);
    this.heldBytes += session.bytes;
    return session;
  }

  get(id: string): Session {
    const session = this.sessions.get(id);
    if (session === undefined || (session.lastUsed < this.now() - this.options.idleTimeoutMs && session.inFlight === undefined)) {
      if (session !== undefined) this.remove(id);
      throw new EnvironmentError(
        404,
        "session_not_found",
        `no session "${id}" on this server (it never existed, was deleted, expired after ${Math.round(this.options.idleTimeoutMs / 1000)} s idle, or lives on another replica)`,
      );
    }
    session.lastUsed = this.now();
    return session;
  }

  delete(id: string): void {
    this.get(id);
    this.remove(id);
  }

  /**
   * Plays the session's turn `turnIndex` with `reply`, through `play` (the stateless step with the
   * session's token and messages). See the class comment for retries and refusals.
   */
  async step(
    id: string,
    turnIndex: number,
    reply: string,
    play: (request: { token: string; messages: Message[]; reply: string }) => Promise<StepOutcome>,
  ): Promise<SessionStepOutcome> {
    const session = this.get(id);
    const sameStep = (step: { turnIndex: number; reply: string } | undefined) =>
      step !== undefined && step.turnIndex === turnIndex && step.reply === reply;
    if (sameStep(session.inFlight)) return { ...(await session.inFlight!.answer), replayed: true };
    if (sameStep(session.lastStep)) return { ...session.lastStep!.outcome, replayed: true };
    if (session.inFlight !== undefined) {
      throw new EnvironmentError(
        409,
        "session_busy",
        `turn ${session.inFlight.turnIndex} of this session is being played with another reply; wait for its answer`,
        { retryable: true, retryAfterSeconds: 1 },
      );
    }
    if (turnIndex !== session.turnIndex) {
      if (turnIndex < session.turnIndex) {
        const retried = session.lastStep?.turnIndex === turnIndex ? " with another reply (a retry must repeat the reply)" : "";
        throw new EnvironmentError(
          409,
          "stale_turn",
          `turn ${turnIndex} of this session was already played${retried}; the session is at turn ${session.turnIndex} (send turnIndex ${session.turnIndex})`,
        );
      }
      throw new EnvironmentError(
        409,
        "turn_mismatch",
        `the session is at turn ${session.turnIndex}, not ${turnIndex}: send the turnIndex the last answer gave`,
      );
    }
    if (session.done) {
      throw new EnvironmentError(
        409,
        "episode_done",
        `the episode is over (${session.endReason ?? "done"}) after ${session.turnIndex} turn(s); create another session`,
      );
    }
    const growth = 2 * (reply.length + session.token.length) + USER_REPLY_ALLOWANCE_BYTES;
    if (this.heldBytes + growth > this.maxBytes) {
      throw new EnvironmentError(
        503,
        "too_many_sessions",
        `this server's sessions hold their memory budget (${formatMebibytes(this.maxBytes)}); retry later, or use the stateless API`,
        {
          retryable: true,
          retryAfterSeconds: 1,
        },
      );
    }
    const answer = this.play(session, turnIndex, reply, play);
    session.inFlight = { turnIndex, reply, answer };
    try {
      return await answer;
    } finally {
      session.inFlight = undefined;
      session.lastUsed = this.now();
    }
  }

  private async play(
    session: Session,
    turnIndex: number,
    reply: string,
    play: (request: { token: string; messages: Message[]; reply: string }) => Promise<StepOutcome>,
  ): Promise<SessionStepOutcome> {
    const outcome = await play({ token: session.token, messages: session.messages, reply });
    const result: StepResponse = outcome.response;
    session.token = result.token;
    session.messages.push({ role: "assistant", content: reply }, { role: "user", content: result.message });
    session.emotion = result.emotion;
    session.turnIndex = result.turnIndex;
    session.done = result.done;
    session.endReason = result.endReason;
    session.totalReward += result.reward;
    const answered: SessionStepOutcome = { ...outcome, session, replayed: false };
    // A retry is answered from this, and never recorded again: the episode's record is not kept.
    const { finished: _finished, ...kept } = answered;
    session.lastStep = { turnIndex, reply, outcome: kept };
    const bytes = sessionBytes(session);
    if (this.sessions.has(session.id)) this.heldBytes += bytes - session.bytes;
    session.bytes = bytes;
    return answered;
  }

  private remove(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    this.heldBytes -= session.bytes;
  }
}

function formatMebibytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MiB`;
}
