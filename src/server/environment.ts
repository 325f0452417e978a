import { createHash, randomBytes, randomInt } from "node:crypto";
import { getPreset, type Preset } from "../core/preset.js";
import { createRng, deriveSeed } from "../core/random.js";
import { StepError, type StageTiming } from "../episode/dialogue-error.js";
import { summarizeTurn } from "../episode/episode-record.js";
import { EpisodeError, startEpisode, step, type StepContext } from "../episode/step.js";
import type { EpisodeState } from "../episode/episode-state.js";
import { loadLexicon } from "../lexicon/lexicon.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { rewardOf, type RewardMode } from "../reward/reward-mode.js";
import type { Message, PresetChoice, ResetRequest, ResetResponse, ScenarioSummary, StepRequest, StepResponse } from "./api-schemas.js";
import { EnvironmentError } from "./environment-error.js";
import { finishedEpisodeRecord } from "./episode-record.js";
import { SERVER_DEFAULTS } from "./server-options.js";
import { hashHistory, HistoryHash, StateTokenCodec, type RecordingState, type TokenPayload } from "./state-token.js";

export interface EnvironmentOptions {
  /** The scenarios this server plays (ids must be unique, as the loaders guarantee). */
  scenarios: readonly Scenario[];
  /** Any simulated user: offline, LLM, or a test double. */
  user: SimulatedUser;
  /** HMAC secret of the state tokens; replicas behind one load balancer need the same one. */
  secret: string | Buffer;
  /** Preset when a reset names none; default `SERVER_DEFAULTS.defaultPreset` (server-options.ts). */
  defaultPreset?: PresetChoice;
  /** Reward mode when a reset names none; default `SERVER_DEFAULTS.defaultRewardMode`. */
  defaultRewardMode?: RewardMode;
  /** A step whose simulated user takes longer is answered 504 (retryable); default `SERVER_DEFAULTS.stepTimeoutMs`. */
  stepTimeoutMs?: number;
  /** Draws the run seed of a reset that gives none; injectable for tests. */
  drawSeed?: () => number;
  /**
   * Record finished episodes (`aeb serve --record`): tokens then carry what the record needs, and the
   * step that ends an episode returns its dialogue record. `condition` is the record's condition when
   * the reset's tags name none.
   */
  recording?: { condition: string; drawNonce?: () => string };
  /** Told how long each call of the simulated user took (the server's metrics, the step pool's stage times). */
  onStage?: (timing: StageTiming) => void;
}

type StepResult = Awaited<ReturnType<typeof step>>;

/** What identifies an episode in responses. */
export type EpisodeFields = Pick<
  ResetResponse,
  "episodeId" | "scenario" | "preset" | "rewardMode" | "seed" | "repeat" | "episodeSeed" | "maxTurns"
>;

/** The result of a step, with what the server needs besides the response (metrics, the recorder). */
export interface StepOutcome {
  response: StepResponse;
  rewardMode: RewardMode;
  /** When the step ended a recorded episode: its record, in the run-record format of `aeb run`. */
  finished?: DialogueRecord;
}

/**
 * The RL environment, independent of HTTP: `reset` starts an episode and `step` plays one turn
 * through the benchmark's own state machine (`episode/step.ts`), so rewards here equal rewards in
 * `aeb run`. Stateless: everything a step needs is in the signed token and the messages.
 */
export class Environment {
  readonly simulatorId: string;
  private readonly user: SimulatedUser;
  private readonly scenarios: ReadonlyMap<string, Scenario>;
  private readonly ordered: readonly Scenario[];
  private readonly fingerprints = new Map<string, string>();
  private readonly codec: StateTokenCodec;
  private readonly defaultPreset: PresetChoice;
  private readonly defaultRewardMode: RewardMode;
  private readonly stepTimeoutMs: number;
  private readonly drawSeed: () => number;
  private readonly recording: { condition: string; drawNonce: () => string } | undefined;
  private readonly onStage: ((timing: StageTiming) => void) | undefined;

  constructor(options: EnvironmentOptions) {
    this.simulatorId = options.user.id;
    this.user = options.user;
    this.onStage = options.onStage;
    // Code-point order, not the locale's: seeded sampling must pick the same scenario on every replica.
    this.ordered = [...options.scenarios].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.scenarios = new Map(this.ordered.map((scenario) => [scenario.id, scenario]));
    if (this.scenarios.size !== this.ordered.length) throw new Error("scenario ids must be unique");
    for (const scenario of this.ordered) this.fingerprints.set(scenario.id, fingerprint(scenario));
    this.codec = new StateTokenCodec(options.secret);
    this.defaultPreset = options.defaultPreset ?? SERVER_DEFAULTS.defaultPreset;
    this.defaultRewardMode = options.defaultRewardMode ?? SERVER_DEFAULTS.defaultRewardMode;
    this.stepTimeoutMs = options.stepTimeoutMs ?? SERVER_DEFAULTS.stepTimeoutMs;
    this.drawSeed = options.drawSeed ?? (() => randomInt(0, 2 ** 32));
    this.recording =
      options.recording === undefined
        ? undefined
        : {
            condition: options.recording.condition,
            drawNonce: options.recording.drawNonce ?? (() => randomBytes(9).toString("base64url")),
          };
    // Fail at start, not on the first request, if a preset is unknown.
    if (this.defaultPreset !== "scenario") getPreset(this.defaultPreset);
    for (const scenario of this.ordered) {
      getPreset(scenario.preset);
      if (scenario.opening === undefined && options.user.open === undefined) {
        throw new Error(`scenario ${scenario.id} has no opening line and simulated user "${options.user.id}" cannot write one`);
      }
      // Load the data files a step reads now, so the first step is not slower than the rest.
      loadLexicon(scenario.language);
      manipulationTurnOf(scenario);
    }
  }

  get scenarioCount(): number {
    return this.ordered.length;
  }

  listScenarios(): ScenarioSummary[] {
    return this.ordered.map((scenario) => ({
      id: scenario.id,
      type: scenario.type,
      suite: scenario.suite,
      language: scenario.language,
      title: scenario.title,
      opening: scenario.opening ?? null,
      preset: scenario.preset,
    }));
  }

  async reset(request: ResetRequest): Promise<ResetResponse> {
    const seed = request.seed ?? this.drawSeed();
    const repeat = request.repeat ?? 0;
    const scenario = this.chooseScenario(request, seed, repeat);
    const preset = this.presetFor(request.preset ?? this.defaultPreset, scenario);
    const rewardMode = request.rewardMode ?? this.defaultRewardMode;
    const episodeSeed = deriveSeed(seed, scenario.id, repeat);
    const episodeId = request.episodeId ?? `env/${scenario.id}/${seed}/${repeat}`;
    let state: EpisodeState;
    try {
      state = await startEpisode(scenario, preset, episodeSeed, { user: this.user, dialogueId: episodeId, onStage: this.onStage });
    } catch (error) {
      // The simulated user wrote no usable opening (the text was empty).
      if (error instanceof StepError && error.cause instanceof EpisodeError) {
        throw new EnvironmentError(
          502,
          "simulator_failed",
          `the simulated user could not open scenario ${scenario.id}: ${error.cause.message}`,
          { retryable: false, cause: error.cause },
        );
      }
      throw this.stepFailure(error, false);
    }
    const { history, ...started } = state;
    const payload: TokenPayload = {
      ...started,
      scenarioHash: this.fingerprints.get(scenario.id) as string,
      simulator: this.simulatorId,
      rewardMode,
      episodeId,
      runSeed: seed,
      repeat,
      historyHash: hashHistory(history),
      ...(this.recording === undefined ? {} : { record: this.recordingState(request) }),
    };
    return {
      ...this.episodeFields(payload, scenario, preset),
      token: this.codec.sign(payload),
      message: state.history[0]!.content,
      messages: state.history.map((turn) => ({ role: turn.role, content: turn.content })),
      emotion: state.emotion,
      turnIndex: 0,
      done: false,
    };
  }

  /**
   * Plays one turn. Rejects (4xx) a token that does not verify, a history that is not the one the
   * token was issued for, and a finished episode; a failure of the simulated user is a 503
   * (retryable) or 502, and a step slower than the timeout a 504 (retryable).
   */
  async step(request: StepRequest, signal?: AbortSignal): Promise<StepOutcome> {
    const payload = this.codec.verify(request.token);
    const scenario = this.scenarioFor(payload);
    if (payload.done) {
      throw new EnvironmentError(
        409,
        "episode_done",
        `the episode is over (${payload.endReason ?? "done"}) after ${payload.turnIndex} turn(s); reset to start another`,
      );
    }
    const historyHash = this.checkHistory(payload, request.messages);
    const preset = getPreset(payload.preset);
    // The payload is the episode state without its history; the token's own fields ride along untouched.
    const state: EpisodeState = { ...payload, history: request.messages };

    const context: StepContext = { scenario, preset, user: this.user, dialogueId: payload.episodeId, onStage: this.onStage };
    const result =
      this.user.cpuBound === true
        ? await this.playNow(state, request.reply, context)
        : await this.playWithDeadline(state, request.reply, context, signal);

    const { turn, state: next } = result;
    const reward = rewardOf(payload.rewardMode, payload.emotion, next.emotion, next.done);
    const record: RecordingState | undefined =
      payload.record === undefined ? undefined : { ...payload.record, turns: [...payload.record.turns, summarizeTurn(turn)] };
    const { history: nextHistory, ...advanced } = next;
    const nextPayload: TokenPayload = {
      ...payload,
      ...advanced,
      historyHash: historyHash.append(nextHistory.slice(request.messages.length)).digest(),
      ...(record !== undefined ? { record } : {}),
    };
    return {
      rewardMode: payload.rewardMode,
      ...(record !== undefined && next.done
        ? { finished: finishedEpisodeRecord({ payload: nextPayload, record, scenario, preset, history: nextHistory }) }
        : {}),
      response: {
        // A reply the preset does not appraise (sage's at its limit) gets no answer and moves nothing.
        message: turn.user.text ?? "",
        emotion: next.emotion,
        change: turn.user.delta ?? 0,
        simulatorChange: turn.user.simulatorDelta ?? 0,
        reward,
        done: next.done,
        endReason: next.endReason,
        adjustments: turn.user.adjustments,
        flags: turn.user.flags,
        hid: turn.user.hid ?? null,
        turnIndex: next.turnIndex,
        token: this.codec.sign(nextPayload),
      },
    };
  }

  /**
   * A CPU-bound user's step runs to its end on this thread before a timer or an abort event could
   * fire, so it is played without a controller, a timer or a race (they cost a tenth of a short step).
   */
  private async playNow(state: EpisodeState, reply: string, context: StepContext): Promise<StepResult> {
    try {
      return await step(state, { text: reply }, context);
    } catch (error) {
      throw this.stepFailure(error, false);
    }
  }

  /** A step that waits on its user (a model server): aborted by the timeout or by the caller (a client that went away). */
  private async playWithDeadline(
    state: EpisodeState,
    reply: string,
    context: StepContext,
    signal: AbortSignal | undefined,
  ): Promise<StepResult> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException(`step timed out after ${this.stepTimeoutMs} ms`, "TimeoutError"));
    }, this.stepTimeoutMs);
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener("abort", forward, { once: true });
    try {
      return await raceAbort(step(state, { text: reply }, { ...context, signal: controller.signal }), controller.signal);
    } catch (error) {
      throw this.stepFailure(error, timedOut);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forward);
    }
  }

  /** The recording state a reset starts: a fresh nonce, the condition, the trainer's step and tags. */
  private recordingState(request: ResetRequest): RecordingState {
    const recording = this.recording as { condition: string; drawNonce: () => string };
    return {
      nonce: recording.drawNonce(),
      condition: request.tags?.condition ?? recording.condition,
      ...(request.trainerStep !== undefined ? { trainerStep: request.trainerStep } : {}),
      ...(request.tags !== undefined ? { tags: request.tags } : {}),
      turns: [],
    };
  }

  private episodeFields(payload: TokenPayload, scenario: Scenario, preset: Preset): EpisodeFields {
    return {
      episodeId: payload.episodeId,
      scenario: { id: scenario.id, type: scenario.type, suite: scenario.suite, language: scenario.language },
      preset: preset.name,
      rewardMode: payload.rewardMode,
      seed: payload.runSeed,
      repeat: payload.repeat,
      episodeSeed: payload.seed,
      maxTurns: preset.maxTurns,
    };
  }

  private chooseScenario(request: ResetRequest, seed: number, repeat: number): Scenario {
    const matches = (scenario: Scenario) =>
      (request.type === undefined || scenario.type === request.type) && (request.suite === undefined || scenario.suite === request.suite);
    if (request.scenarioId !== undefined) {
      const scenario = this.scenarios.get(request.scenarioId);
      if (scenario === undefined) {
        throw new EnvironmentError(
          404,
          "unknown_scenario",
          `unknown scenario "${request.scenarioId}" (GET /v1/scenarios lists the ${this.ordered.length} this server plays)`,
        );
      }
      if (!matches(scenario)) {
        throw new EnvironmentError(
          404,
          "no_matching_scenario",
          `scenario "${scenario.id}" is of type ${scenario.type} in suite ${scenario.suite}, not what the request asks for`,
        );
      }
      return scenario;
    }
    const candidates = this.ordered.filter(matches);
    if (candidates.length === 0) {
      const asked = [
        request.type !== undefined ? `type ${request.type}` : null,
        request.suite !== undefined ? `suite ${request.suite}` : null,
      ]
        .filter(Boolean)
        .join(" and ");
      throw new EnvironmentError(404, "no_matching_scenario", `no scenario of ${asked} on this server`);
    }
    return candidates[createRng(deriveSeed(seed, "scenario", repeat)).int(0, candidates.length - 1)] as Scenario;
  }

  private presetFor(choice: PresetChoice, scenario: Scenario): Preset {
    return getPreset(choice === "scenario" ? scenario.preset : choice);
  }

  private scenarioFor(payload: TokenPayload): Scenario {
    if (payload.simulator !== this.simulatorId) {
      throw new EnvironmentError(
        409,
        "simulator_changed",
        `the token was issued by simulated user "${payload.simulator}", but this server runs "${this.simulatorId}"`,
      );
    }
    const scenario = this.scenarios.get(payload.scenarioId);
    if (scenario === undefined || this.fingerprints.get(scenario.id) !== payload.scenarioHash) {
      throw new EnvironmentError(
        409,
        "scenario_changed",
        `this server does not hold scenario "${payload.scenarioId}" as the token was issued for it (replicas need the same scenario files)`,
      );
    }
    return scenario;
  }

  /** The messages must be exactly the history the token was issued for; their hash goes on with the step's new turn. */
  private checkHistory(payload: TokenPayload, messages: readonly Message[]): HistoryHash {
    const expected = 2 * payload.turnIndex + 1;
    if (messages.length !== expected) {
      throw new EnvironmentError(
        409,
        "history_mismatch",
        `the token is for turn ${payload.turnIndex}, which needs ${expected} message(s) (the opening and ${payload.turnIndex} assistant/user pair(s)); got ${messages.length}`,
      );
    }
    const misplaced = messages.findIndex((message, index) => message.role !== (index % 2 === 0 ? "user" : "assistant"));
    if (misplaced !== -1) {
      throw new EnvironmentError(
        409,
        "history_mismatch",
        `messages[${misplaced}] should have role ${misplaced % 2 === 0 ? "user" : "assistant"} (the opening, then alternating assistant and user turns)`,
      );
    }
    const hash = new HistoryHash(messages);
    if (hash.digest() !== payload.historyHash) {
      throw new EnvironmentError(
        409,
        "history_mismatch",
        "the messages differ from the history the token was issued for (send the messages exactly as they were played)",
      );
    }
    return hash;
  }

  private stepFailure(error: unknown, timedOut: boolean): Error {
    if (timedOut) {
      return new EnvironmentError(
        504,
        "step_timeout",
        `the simulated user did not answer within ${this.stepTimeoutMs} ms; the same step may be retried`,
        { retryable: true, cause: error },
      );
    }
    if (EnvironmentError.isInstance(error)) return error;
    if (error instanceof StepError) {
      const cause = error.cause as { name?: unknown; isRetryable?: unknown; retryAfterMs?: unknown } | undefined;
      const kind = typeof cause?.name === "string" ? cause.name : "Error";
      const stage = error.stage.replace("_", " ");
      if (cause?.isRetryable === false) {
        return new EnvironmentError(
          502,
          "simulator_failed",
          `the simulated user failed (${kind}) in its ${stage} and the failure is not transient`,
          { retryable: false, cause: error.cause },
        );
      }
      const retryAfter = typeof cause?.retryAfterMs === "number" ? Math.max(1, Math.ceil(cause.retryAfterMs / 1000)) : undefined;
      return new EnvironmentError(
        503,
        "simulator_unavailable",
        `the simulated user failed (${kind}) in its ${stage}; the same step may be retried (it is replayed from the same state)`,
        {
          retryable: true,
          retryAfterSeconds: retryAfter,
          cause: error.cause,
        },
      );
    }
    if (error instanceof EpisodeError)
      return new EnvironmentError(409, "history_mismatch", "the token's state cannot take a step", { cause: error });
    if (error instanceof Error && error.name === "AbortError") {
      return new EnvironmentError(503, "cancelled", "the step was cancelled (the client went away); the same step may be retried", {
        retryable: true,
        cause: error,
      });
    }
    return new EnvironmentError(500, "internal", "internal error while playing the step", { cause: error });
  }
}

/** A short fingerprint of a scenario's content (zod output has a fixed key order, so JSON is canonical). */
function fingerprint(scenario: Scenario): string {
  return createHash("sha256").update(JSON.stringify(scenario)).digest("base64url").slice(0, 22);
}

/** Settles with the work, or rejects as soon as the signal aborts (the work may go on in the background). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
