/**
 * The one builder of a dialogue's record, for every driver: `runEpisode` (which keeps each turn's
 * record as it is played) and the environment server's last step (which keeps only the token's
 * projection of each turn, `TurnSummary`, and gets the texts back from the messages). Both write the
 * same fields in the same order, so a recorded training episode reads like a line of `aeb run`.
 */
import { z } from "zod";
import { codePointCount } from "../core/code-points.js";
import { AppraisedUserTurnSchema, type ChatTurn, type DialogueError, type DialogueRecord, type TurnRecord } from "../core/dialogue.js";
import type { Preset } from "../core/preset.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
import type { EpisodeState } from "./episode-state.js";

/**
 * What a signed state token keeps of each finished turn: the user side of the turn's record without
 * its text (the messages carry it) and without the appraisal details (too large to sign into every
 * token).
 */
export const TurnSummarySchema = AppraisedUserTurnSchema.pick({
  emotion: true,
  delta: true,
  simulatorDelta: true,
  adjustments: true,
  flags: true,
  hid: true,
}).extend({
  /** false: the preset recorded this reply without appraising it (sage's reply at its limit); delta and simulatorDelta are then 0. */
  appraised: z.literal(false).optional(),
});
export type TurnSummary = z.infer<typeof TurnSummarySchema>;

/** The token's projection of a played turn. */
export function summarizeTurn(turn: TurnRecord): TurnSummary {
  const { user } = turn;
  return {
    ...(user.appraised === false ? { appraised: false as const } : {}),
    emotion: user.emotion,
    delta: user.delta ?? 0,
    simulatorDelta: user.simulatorDelta ?? 0,
    adjustments: user.adjustments,
    flags: user.flags,
    ...(user.hid !== undefined ? { hid: user.hid } : {}),
  };
}

/** The turns' records back from their projections and the whole conversation (the opening, then each reply and answer). */
export function turnsFromSummaries(summaries: readonly TurnSummary[], history: readonly ChatTurn[]): TurnRecord[] {
  return summaries.map((summary, index) => {
    const agentText = history[2 * index + 1]?.content ?? "";
    const agent = { text: agentText, chars: codePointCount(agentText) };
    if (summary.appraised === false) {
      // Recorded, never appraised (sage's reply at its limit): no user text, no change, as `aeb run` writes it.
      return { index, agent, user: { appraised: false, emotion: summary.emotion, adjustments: [], flags: summary.flags } };
    }
    const user = {
      text: history[2 * index + 2]?.content ?? "",
      emotion: summary.emotion,
      delta: summary.delta,
      simulatorDelta: summary.simulatorDelta,
      adjustments: summary.adjustments,
      flags: summary.flags,
      ...(summary.hid !== undefined ? { hid: summary.hid } : {}),
    };
    return { index, agent, user };
  });
}

export interface DialogueRecordInput {
  id: string;
  condition: string;
  scenario: Scenario;
  preset: Preset;
  repeat: number;
  /** The episode seed the simulated user drew from. */
  seed: number;
  /** The state after the last turn (what the record reads of it); undefined when the episode failed before it started. */
  state: (Pick<EpisodeState, "emotion" | "endReason"> & { history: readonly ChatTurn[] }) | undefined;
  turns: TurnRecord[];
  error?: DialogueError;
}

/** A dialogue's line of dialogues.jsonl (docs/output-format.md). A dialogue in error is never scored as a success or a collapse. */
export function dialogueRecord({
  id,
  condition,
  scenario,
  preset,
  repeat,
  seed,
  state,
  turns,
  error,
}: DialogueRecordInput): DialogueRecord {
  const emotion = state?.emotion ?? preset.start;
  return {
    id,
    condition,
    scenarioId: scenario.id,
    type: scenario.type,
    repeat,
    seed,
    status: error === undefined ? "done" : "error",
    endReason: error === undefined ? (state?.endReason ?? "max_turns") : "error",
    ...(error !== undefined ? { error } : {}),
    preset: preset.name,
    manipulationTurn: manipulationTurnOf(scenario),
    opening: {
      text: state?.history[0]?.content ?? "",
      emotion: preset.start,
      ...(scenario.opening === undefined ? { source: "simulated_user" as const } : {}),
    },
    turns,
    final: { emotion, fs: emotion / 100 },
  };
}
