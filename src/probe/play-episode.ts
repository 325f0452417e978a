import type { Agent } from "../agents/agent.js";
import { getPreset } from "../core/preset.js";
import type { AdversarialType } from "../core/trajectory-type.js";
import { startEpisode, step } from "../episode/step.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { renderTemplate, templateAt, type Policy, type PolicySpace } from "./policy.js";

/** One dialogue of the probe: a scenario and the seed its simulated user plays with. */
export interface ProbeEpisode {
  scenario: Scenario;
  seed: number;
}

/** What a played dialogue gives the probe: its return (final emotion / 100) and what was said. */
export interface PlayedEpisode {
  scenarioId: string;
  seed: number;
  fs: number;
  endReason: string;
  turns: Array<{ reply: string; user: string; emotion: number }>;
}

/** Where the reply of each turn comes from: a policy of the search, or an agent (the attuned reference). */
export type ReplySource = { policy: Policy; space: PolicySpace } | { agent: Agent };

/**
 * Plays one dialogue to its end through the same `startEpisode` and `step` as the environment
 * server (the deterministic detectors included, the scenario's preset), so the return is the
 * reward an RL policy sending these replies would get with reward mode `final`.
 */
export async function playEpisode(
  episode: ProbeEpisode,
  source: ReplySource,
  user: SimulatedUser,
  signal?: AbortSignal,
): Promise<PlayedEpisode> {
  const { scenario, seed } = episode;
  const preset = getPreset(scenario.preset);
  // The search's dialogues and attuned's have ids of their own (an LLM user's cache and logs keep them apart).
  const dialogueId = `${"agent" in source ? source.agent.id : "probe"}:${scenario.id}:${seed}`;
  let state = await startEpisode(scenario, preset, seed, { user, dialogueId, signal });
  const turns: PlayedEpisode["turns"] = [];
  while (!state.done) {
    const userText = state.history.at(-1)?.content ?? "";
    const reply =
      "agent" in source
        ? (
            await source.agent.reply({
              history: state.history,
              language: scenario.language,
              turnIndex: state.turnIndex,
              seed,
              dialogueId,
              signal,
            })
          ).text
        : renderTemplate(source.space, templateAt(source.policy, state.turnIndex), {
            type: scenario.type as AdversarialType,
            language: scenario.language,
            userText,
          });
    const result = await step(state, { text: reply }, { scenario, preset, user, dialogueId, signal });
    state = result.state;
    turns.push({ reply, user: result.turn.user.text ?? "", emotion: result.turn.user.emotion });
  }
  return { scenarioId: scenario.id, seed, fs: state.emotion / 100, endReason: state.endReason ?? "max_turns", turns };
}

/** Plays the episodes with at most `concurrency` in flight; results in the episodes' order. */
export async function playEpisodes(
  episodes: readonly ProbeEpisode[],
  source: ReplySource,
  user: SimulatedUser,
  options: { concurrency: number; signal?: AbortSignal; onEpisode?: () => void },
): Promise<PlayedEpisode[]> {
  const results: PlayedEpisode[] = new Array(episodes.length);
  let next = 0;
  const worker = async () => {
    while (next < episodes.length) {
      const index = next;
      next += 1;
      options.signal?.throwIfAborted();
      results[index] = await playEpisode(episodes[index] as ProbeEpisode, source, user, options.signal);
      options.onEpisode?.();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, episodes.length)) }, worker));
  return results;
}

export const meanFs = (played: readonly PlayedEpisode[]): number => played.reduce((sum, episode) => sum + episode.fs, 0) / played.length;
