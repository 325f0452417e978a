import { createRng, deriveSeed } from "../core/random.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { meanFs, playEpisodes, type ProbeEpisode } from "./play-episode.js";
import { mutatePolicy, randomPolicy, type PolicySpace } from "./policy.js";
import type { TypeSearch } from "./probe-schema.js";

/** What one evaluation of a type's search needs. */
export interface SearchContext {
  seed: number;
  space: PolicySpace;
  patience: number;
  training: readonly ProbeEpisode[];
  user: SimulatedUser;
  concurrency: number;
  signal?: AbortSignal;
  onEpisode?: () => void;
}

/**
 * One evaluation of hill climbing with restarts, as a pure step from the search's state: a
 * random policy to start a climb (the first, or after `patience` evaluations without
 * improvement), otherwise a mutation of the climb's current policy, kept when it scores at least
 * as well (an equal score moves along a plateau). Evaluation N draws from its own seed, derived
 * from the probe's seed, the type and N, so a search resumed from a checkpoint makes exactly the
 * moves the uninterrupted one would. The state is not touched when the evaluation is aborted.
 */
export async function evaluateNext(state: TypeSearch, context: SearchContext): Promise<TypeSearch> {
  const index = state.evaluations;
  const rng = createRng(deriveSeed(context.seed, state.type, "evaluation", index));
  const restart = state.current === null || state.current.stale >= context.patience;
  const candidate =
    restart || state.current === null ? randomPolicy(context.space, rng) : mutatePolicy(context.space, state.current.policy, rng);
  const played = await playEpisodes(context.training, { policy: candidate, space: context.space }, context.user, {
    concurrency: context.concurrency,
    signal: context.signal,
    onEpisode: context.onEpisode,
  });
  const score = meanFs(played);

  let current = state.current;
  if (restart || current === null) current = { policy: candidate, score, stale: 0 };
  else if (score > current.score) current = { policy: candidate, score, stale: 0 };
  else if (score === current.score) current = { policy: candidate, score, stale: current.stale + 1 };
  else current = { ...current, stale: current.stale + 1 };
  const best = state.best === null || score > state.best.score ? { policy: candidate, score, evaluation: index } : state.best;
  return {
    ...state,
    evaluations: index + 1,
    climbs: state.climbs + (restart ? 1 : 0),
    current,
    best,
    curve: [...state.curve, best.score],
  };
}
