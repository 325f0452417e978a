import { z } from "zod";
import type { Rng } from "../core/random.js";
import type { PoolTag } from "./pool-schema.js";
import { fragmentsOf, hasTag, type FragmentContext, type FragmentPool } from "./pools.js";
import type { ProbeConstraints } from "./constraints.js";

/**
 * A reply policy of the search: for each turn of the dialogue, a template of fragment references
 * (pool and index). A reference to a pool that reads the user's message picks from that message,
 * so the same template answers each conversation in its own words, as a policy that conditions on
 * the user would. The last template answers every later turn.
 */
export const GeneSchema = z.strictObject({ pool: z.string().min(1), index: z.number().int().min(0) });
export type Gene = z.infer<typeof GeneSchema>;
export const PolicySchema = z.strictObject({ turns: z.array(z.array(GeneSchema).min(1)).min(1) });
export type Policy = z.infer<typeof PolicySchema>;

/** Fragment indices are drawn from [0, INDEX_RANGE) and taken modulo the pool's size. */
const INDEX_RANGE = 10_000;

/** What a search draws from: its usable pools, the constraints, the longest reply and the turn count. */
export interface PolicySpace {
  pools: readonly FragmentPool[];
  constraints: ProbeConstraints;
  maxFragments: number;
  turns: number;
}

function randomGene(space: PolicySpace, rng: Rng, pools: readonly FragmentPool[] = space.pools): Gene {
  return { pool: rng.pick(pools).name, index: rng.int(0, INDEX_RANGE - 1) };
}

function poolOf(space: PolicySpace, gene: Gene): FragmentPool {
  const pool = space.pools.find((candidate) => candidate.name === gene.pool);
  if (pool === undefined) throw new Error(`policy names pool "${gene.pool}", which this search does not use`);
  return pool;
}

function carries(space: PolicySpace, template: readonly Gene[], tag: PoolTag): boolean {
  return template.some((gene) => hasTag(poolOf(space, gene), tag));
}

/**
 * The template with every required tag present: a missing one is added as a fresh fragment from
 * a pool with that tag, inserted while the reply has room, else in place of a fragment no other
 * requirement needs. Excluded pools are never in the space, so exclusion holds by construction.
 */
export function repairTemplate(space: PolicySpace, template: readonly Gene[], rng: Rng): Gene[] {
  const repaired = [...template];
  for (const tag of space.constraints.require) {
    if (carries(space, repaired, tag)) continue;
    const gene = randomGene(
      space,
      rng,
      space.pools.filter((pool) => hasTag(pool, tag)),
    );
    if (repaired.length < space.maxFragments) {
      repaired.splice(rng.int(0, repaired.length), 0, gene);
      continue;
    }
    const replaceable = repaired
      .map((_gene, position) => position)
      .filter((position) => {
        const without = repaired.filter((_gene, other) => other !== position);
        // A slot may go when every other requirement it meets is met elsewhere too (or is not met yet: its turn comes).
        return space.constraints.require.every(
          (required) => required === tag || !carries(space, repaired, required) || carries(space, without, required),
        );
      });
    // usablePools checked that the required tags fit in maxFragments, so a slot is always free.
    repaired[rng.pick(replaceable)] = gene;
  }
  return repaired;
}

function randomTemplate(space: PolicySpace, rng: Rng): Gene[] {
  const template = Array.from({ length: rng.int(1, space.maxFragments) }, () => randomGene(space, rng));
  return repairTemplate(space, template, rng);
}

export function randomPolicy(space: PolicySpace, rng: Rng): Policy {
  return { turns: Array.from({ length: space.turns }, () => randomTemplate(space, rng)) };
}

/**
 * A neighbour of the policy: one to three edits, each on one turn's template (another fragment
 * of the same pool, a fragment of another pool, one added, one dropped, two swapped, or the
 * template copied from another turn or onto every turn), then the constraints restored.
 */
export function mutatePolicy(space: PolicySpace, policy: Policy, rng: Rng): Policy {
  const turns = policy.turns.map((template) => [...template]);
  const edits = rng.int(1, 3);
  for (let edit = 0; edit < edits; edit += 1) {
    const turn = rng.int(0, turns.length - 1);
    const template = turns[turn] as Gene[];
    const position = rng.int(0, template.length - 1);
    const gene = template[position] as Gene;
    switch (rng.int(0, 6)) {
      case 0:
        template[position] = { pool: gene.pool, index: rng.int(0, INDEX_RANGE - 1) };
        break;
      case 1:
        template[position] = randomGene(space, rng);
        break;
      case 2:
        if (template.length < space.maxFragments) template.splice(rng.int(0, template.length), 0, randomGene(space, rng));
        break;
      case 3:
        if (template.length > 1) template.splice(position, 1);
        break;
      case 4: {
        const other = rng.int(0, template.length - 1);
        template[position] = template[other] as Gene;
        template[other] = gene;
        break;
      }
      case 5:
        turns[turn] = [...(turns[rng.int(0, turns.length - 1)] as Gene[])];
        break;
      default:
        // What works on one turn often works on all: the template on every turn.
        for (let other = 0; other < turns.length; other += 1) turns[other] = [...template];
    }
  }
  return { turns: turns.map((template) => repairTemplate(space, template, rng)) };
}

/** The template answering turn `turnIndex`. */
export function templateAt(policy: Policy, turnIndex: number): readonly Gene[] {
  return policy.turns[Math.min(turnIndex, policy.turns.length - 1)] as Gene[];
}

/** The fragment a gene stands for here, or null when its pool has none here (a message with no content word). */
export function fragmentText(pool: FragmentPool, gene: Gene, context: FragmentContext): string | null {
  const fragments = fragmentsOf(pool, context);
  return fragments.length === 0 ? null : (fragments[gene.index % fragments.length] as string);
}

/** The reply a template makes in this context: its fragments joined as one message. */
export function renderTemplate(space: PolicySpace, template: readonly Gene[], context: FragmentContext): string {
  const parts = template.map((gene) => fragmentText(poolOf(space, gene), gene, context)).filter((text): text is string => text !== null);
  return parts.join(context.language === "zh" ? "" : " ");
}

/**
 * A template as a person reads it: each fragment of a file's or the lexicon's pool verbatim, a
 * fragment of the user's message as a placeholder (it differs per conversation).
 */
export function describeTemplate(
  space: PolicySpace,
  template: readonly Gene[],
  context: Omit<FragmentContext, "userText">,
): Array<{ pool: string; text: string }> {
  return template.map((gene) => {
    const pool = poolOf(space, gene);
    if (pool.source === "user-quote")
      return { pool: pool.name, text: `{quote: clause ${gene.index} of the user's message, counted round}` };
    if (pool.source === "user-words")
      return { pool: pool.name, text: `{word: content word ${gene.index} of the user's message, counted round}` };
    return { pool: pool.name, text: fragmentText(pool, gene, { ...context, userText: "" }) ?? "" };
  });
}
