import { z } from "zod";

/**
 * How an RL trainer is paid for an episode's emotions (the environment server's reward modes):
 *
 * - `final` (RLVER's verifiable emotion reward): the terminal step pays the final emotion / 100 and
 *   every earlier step pays 0, so an episode's rewards sum to its final score;
 * - `delta`: every step pays the emotion's change / 100, (e_t - e_{t-1}) / 100, so an episode's
 *   rewards sum to (final - start) / 100 and credit arrives at the turn that earned it.
 */
export const RewardModeSchema = z.enum(["final", "delta"]);
export type RewardMode = z.infer<typeof RewardModeSchema>;

/** The reward of one step: emotions are on the 0-100 scale, `done` says whether the step ended the episode. */
export function rewardOf(mode: RewardMode, emotionBefore: number, emotionAfter: number, done: boolean): number {
  if (mode === "delta") return (emotionAfter - emotionBefore) / 100;
  return done ? emotionAfter / 100 : 0;
}
