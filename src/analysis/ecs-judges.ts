/**
 * Which ECS judges are models and which are heuristics, decided from the record itself: every
 * ECS judgement carries the id of the judge that made it (`judge`: `offline-lexicon`,
 * `llm-ecs:MODEL`...), whatever name the run config gave the judge. So a run directory written
 * before this distinction existed is labelled right too.
 *
 * Only a model judge gives the headline ECS. A heuristic stays in the ECS section under a name
 * that says what it is, and comparisons on it are named `ecs:NAME`, never `ecs`.
 */
import type { DialogueRow } from "../metrics/dialogue-row.js";

/** A heuristic ECS judge: not a model, so never the headline ECS. */
export interface HeuristicEcsJudge {
  /** What it is, as the reports name it ("ECS lexicon baseline"). */
  label: string;
  /** What it reads, and that it is not a model judge. */
  description: string;
}

/**
 * The project's heuristic ECS judges, by judge id. The offline affect-lexicon judge
 * (judges/offline-ecs-judge.ts) predicts the user's emotion from the affect words of the user's
 * own messages: it never reads the agent's reply, so it cannot tell a good reply from a bad one.
 * Every other judge id is a model judge (`llm-ecs:MODEL`, and any id this version does not know).
 */
export const HEURISTIC_ECS_JUDGES: Readonly<Record<string, HeuristicEcsJudge>> = {
  "offline-lexicon": { label: "ECS lexicon baseline", description: "reads the user's messages only, not a model judge" },
};

/** Whether a judge id is one of the heuristics of {@link HEURISTIC_ECS_JUDGES}. */
export function isHeuristicEcsJudgeId(id: string): boolean {
  return Object.hasOwn(HEURISTIC_ECS_JUDGES, id);
}

/** The ECS judges of a run sorted into model judges and heuristics. */
export interface EcsJudgeKinds {
  /** The headline ECS judge: the first judge (in the given order) that is a model; null when none is. */
  headline: string | null;
  /** Judge names that are heuristics, in the given order, each with the heuristic it is. */
  heuristics: Array<{ name: string; id: string } & HeuristicEcsJudge>;
}

/**
 * Sorts the named ECS judges into model judges and heuristics from the judge ids their judgements
 * carry. A name is a heuristic when any of its judgements was made by a heuristic (a name is a
 * model judge only if all of them were by models); a name with no judgement at all is judged by
 * the name itself (the default config names the offline judge `offline-lexicon`), and a judgement
 * without an id by its name too.
 */
export function classifyEcsJudges(rows: readonly Pick<DialogueRow, "ecs">[], names: readonly string[]): EcsJudgeKinds {
  const heuristics: EcsJudgeKinds["heuristics"] = [];
  let headline: string | null = null;
  for (const name of names) {
    const ids = new Set<string>();
    for (const row of rows) {
      const entry = row.ecs[name];
      if (entry !== undefined) ids.add(entry.judge ?? name);
    }
    if (ids.size === 0) ids.add(name);
    const heuristicId = [...ids].find(isHeuristicEcsJudgeId);
    if (heuristicId !== undefined) heuristics.push({ name, id: heuristicId, ...(HEURISTIC_ECS_JUDGES[heuristicId] as HeuristicEcsJudge) });
    else headline ??= name;
  }
  return { headline, heuristics };
}

/** How a heuristic judge is named wherever its scores are shown: "ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge". */
export function heuristicEcsTitle(heuristic: { name: string } & HeuristicEcsJudge): string {
  return `${heuristic.label} (${heuristic.name}): ${heuristic.description}`;
}

/** The comparison metric of an ECS judge: `ecs` for the headline's, `ecs:NAME` for every other. */
export function ecsMetricName(name: string, headline: string | null): string {
  return name === headline ? "ecs" : `ecs:${name}`;
}

/** The note that says why the headline ECS is n/a although ECS judges ran, or null when there is a model judge (or no judge). */
export function noModelJudgeNote(kinds: EcsJudgeKinds): string | null {
  if (kinds.headline !== null || kinds.heuristics.length === 0) return null;
  const named = kinds.heuristics
    .map((heuristic) => `${heuristic.name} is the ${heuristic.label}, which ${heuristic.description}`)
    .join("; ");
  const plural = kinds.heuristics.length > 1;
  return `ECS is n/a (no model judge): ${named}. ${plural ? "Their scores are" : "Its scores are"} in the ECS section under ${plural ? "those names" : "that name"}, never the headline ECS; add an LLM ECS judge (judges.ecs, kind: llm) for a headline ECS.`;
}
