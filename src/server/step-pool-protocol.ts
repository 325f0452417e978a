import type { DialogueRecord } from "../core/dialogue.js";
import type { StageTiming } from "../episode/dialogue-error.js";
import type { RewardMode } from "../reward/reward-mode.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { PresetChoice } from "./api-schemas.js";
import type { ErrorBody } from "./environment-error.js";

/**
 * The messages between the step pool (`step-pool.ts`, main thread) and its threads
 * (`step-worker.ts`). Structured-cloned by `postMessage`; the batch body is transferred, not copied.
 */

/** What a thread needs to build an `Environment` that issues and accepts the same tokens as the server's. */
export interface StepPoolInit {
  /** The id of the server's simulated user: a thread plays the offline user, and refuses to start if that is not the one. */
  simulator: string;
  scenarios: readonly Scenario[];
  secret: Uint8Array;
  defaultPreset: PresetChoice;
  defaultRewardMode: RewardMode;
  stepTimeoutMs: number;
  maxBatchSize: number;
  /** Set when the server records episodes: the default condition of the records. */
  recordCondition?: string;
}

export type PoolRequest = { type: "batch"; id: number; body: Uint8Array } | { type: "cancel"; id: number };

/** What the main thread records of one step of a batch (metrics, the recorder). */
export interface StepStat {
  /** `ok`, or the error code. */
  outcome: string;
  status?: number;
  seconds: number;
  /** The simulated user's calls during the step. */
  stages: StageTiming[];
  reward?: number;
  rewardMode?: RewardMode;
  flags?: string[];
  endReason?: string | null;
  /** The record of an episode this step finished (recording servers only). */
  finished?: DialogueRecord;
  /** A 5xx's internal cause, for the server log (never sent to the client). */
  internalCause?: string;
}

/** A thread's answer to one batch: the response body ready to send, or an error for the whole request, or a crash. */
export type BatchReply =
  | { id: number; body: string; stats: StepStat[] }
  | { id: number; requestError: { status: number; body: ErrorBody; retryAfterSeconds?: number } }
  | { id: number; crash: string };
