import { codePointCount } from "../core/code-points.js";
import type { ChatTurn, DialogueRecord, TurnRecord } from "../core/dialogue.js";
import type { Preset } from "../core/preset.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
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
 * The record of a finished training episode in the run-record format: the same fields, turn by
 * turn, that `aeb run` writes for a dialogue with the same scenario, seed and replies, except the
 * simulated user's appraisal details (reasoning and rubric items), which the tokens do not carry.
 * Its id is `<condition>/<episodeId>/<nonce>`: the nonce tells apart episodes that share an id.
 */
export function finishedEpisodeRecord({ payload, record, scenario, preset, history }: FinishedEpisode): DialogueRecord & { training: TrainingFields } {
  const turns: TurnRecord[] = record.turns.map((summary, index) => {
    const agentText = history[2 * index + 1]?.content ?? "";
    const agent = { text: agentText, chars: codePointCount(agentText) };
    if (summary.appraised === false) {
      // Recorded, never appraised (sage's reply at its limit): no user text, no change, as `aeb run` writes it.
      return { index, agent, user: { appraised: false, emotion: summary.emotion, adjustments: [], flags: summary.flags } };
    }
    return {
      index,
      agent,
      user: {
        text: history[2 * index + 2]?.content ?? "",
        emotion: summary.emotion,
        delta: summary.delta,
        simulatorDelta: summary.simulatorDelta,
        adjustments: summary.adjustments,
        flags: summary.flags,
        ...(summary.hid !== undefined ? { hid: summary.hid } : {}),
      },
    };
  });
  return {
    id: `${record.condition}/${payload.episodeId}/${record.nonce}`,
    condition: record.condition,
    scenarioId: scenario.id,
    type: scenario.type,
    repeat: payload.repeat,
    seed: payload.seed,
    status: "done",
    endReason: payload.endReason ?? "max_turns",
    preset: preset.name,
    manipulationTurn: manipulationTurnOf(scenario),
    opening: {
      text: history[0]?.content ?? "",
      emotion: preset.start,
      ...(scenario.opening === undefined ? { source: "simulated_user" as const } : {}),
    },
    turns,
    final: { emotion: payload.emotion, fs: payload.emotion / 100 },
    training: {
      episodeId: payload.episodeId,
      runSeed: payload.runSeed,
      rewardMode: payload.rewardMode,
      ...(record.trainerStep !== undefined ? { trainerStep: record.trainerStep } : {}),
      ...(record.tags !== undefined ? { tags: record.tags } : {}),
    },
  };
}
