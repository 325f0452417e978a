import type { ChatTurn, DialogueRecord } from "../core/dialogue.js";
import type { Preset } from "../core/preset.js";
import { dialogueRecord, turnsFromSummaries } from "../episode/episode-record.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { RecordingState, TokenPayload } from "./state-token.js";

/**
 * What a recorded training episode carries besides the fields `aeb run` writes, under `training`
 * on its line of dialogues.jsonl.
 */
export interface TrainingFields {
  /** The episode id of the reset (given by the client, or derived from scenario, seed and repeat). */
  episodeId: string;
  /** The run seed the episode was reset with (its `seed` is the episode seed derived from it, as in `aeb run`). */
  runSeed: number;
  rewardMode: TokenPayload["rewardMode"];
  trainerStep?: number;
  tags?: Record<string, string>;
}

export interface FinishedEpisode {
  /** The token payload after the last step. */
  payload: TokenPayload;
  record: RecordingState;
  scenario: Scenario;
  preset: Preset;
  /** The whole visible conversation: the opening, then each agent reply and user answer. */
  history: readonly ChatTurn[];
}

/**
 * The record of a finished training episode, built by the episode's own record builder: the same
 * fields, turn by turn, that `aeb run` writes for a dialogue with the same scenario, seed and
 * replies, except the simulated user's appraisal details (reasoning and rubric items), which the
 * tokens do not carry. Its id is `<condition>/<episodeId>/<nonce>`: the nonce tells apart episodes
 * that share an id.
 */
export function finishedEpisodeRecord({
  payload,
  record,
  scenario,
  preset,
  history,
}: FinishedEpisode): DialogueRecord & { training: TrainingFields } {
  return {
    ...dialogueRecord({
      id: `${record.condition}/${payload.episodeId}/${record.nonce}`,
      condition: record.condition,
      scenario,
      preset,
      repeat: payload.repeat,
      seed: payload.seed,
      state: { ...payload, history },
      turns: turnsFromSummaries(record.turns, history),
    }),
    training: {
      episodeId: payload.episodeId,
      runSeed: payload.runSeed,
      rewardMode: payload.rewardMode,
      ...(record.trainerStep !== undefined ? { trainerStep: record.trainerStep } : {}),
      ...(record.tags !== undefined ? { tags: record.tags } : {}),
    },
  };
}
