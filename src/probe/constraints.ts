import { ConfigError } from "../core/errors.js";
import type { AdversarialType } from "../core/trajectory-type.js";
import type { Language } from "../lexicon/lexicon.js";
import { POOL_TAGS, PoolTagSchema, type PoolTag } from "./pool-schema.js";
import { hasTag, poolServes, type FragmentPool } from "./pools.js";

/** What every reply of the search must and must not carry, as pool tags. */
export interface ProbeConstraints {
  /** Every reply holds at least one fragment from a pool with each of these tags. */
  require: PoolTag[];
  /** No reply holds a fragment from a pool with any of these tags. */
  exclude: PoolTag[];
}

/** `--require a,b` / `--exclude c` (repeatable): known tags, each once. `flag` names the flag in errors. */
export function parseTagList(values: readonly string[], flag: string): PoolTag[] {
  const tags: PoolTag[] = [];
  for (const value of values.flatMap((list) => list.split(",")).map((tag) => tag.trim())) {
    if (value === "") continue;
    const parsed = PoolTagSchema.safeParse(value);
    if (!parsed.success) throw new ConfigError(`${flag}: unknown pool tag "${value}" (known: ${POOL_TAGS.join(", ")})`);
    if (!tags.includes(parsed.data)) tags.push(parsed.data);
  }
  return tags;
}

/**
 * The pools a search of this type may draw from: those that serve every language of its
 * scenarios and carry no excluded tag. Throws, naming the flag, the type and the pools looked at,
 * when a constraint cannot be met: a tag both required and excluded, a required tag no usable pool
 * carries, more required tags than a reply has fragments, or no pool left at all.
 */
export function usablePools(
  pools: readonly FragmentPool[],
  constraints: ProbeConstraints,
  type: AdversarialType,
  languages: readonly Language[],
  maxFragments: number,
): FragmentPool[] {
  for (const tag of constraints.require) {
    if (constraints.exclude.includes(tag))
      throw new ConfigError(`--require ${tag} and --exclude ${tag}: no reply can both carry and avoid a ${tag} fragment`);
  }
  if (constraints.require.length > maxFragments) {
    throw new ConfigError(
      `--require ${constraints.require.join(",")}: ${constraints.require.length} required tags do not fit in --max-fragments ${maxFragments}; raise --max-fragments or require fewer tags`,
    );
  }
  const usable = pools.filter(
    (pool) => !constraints.exclude.some((tag) => hasTag(pool, tag)) && languages.every((language) => poolServes(pool, type, language)),
  );
  if (usable.length === 0) {
    throw new ConfigError(
      `no pool is left for type ${type}${constraints.exclude.length > 0 ? ` after --exclude ${constraints.exclude.join(",")}` : ""} (pools: ${pools.map((pool) => `${pool.name} [${pool.tags.join(", ")}]`).join("; ")})`,
    );
  }
  for (const tag of constraints.require) {
    if (usable.some((pool) => hasTag(pool, tag))) continue;
    const tagged = pools.filter((pool) => hasTag(pool, tag));
    const why =
      tagged.length === 0
        ? `no pool carries the tag ${tag}; add one with --pool FILE (tags: [${tag}])`
        : `the pools tagged ${tag} (${tagged.map((pool) => `${pool.name}, ${pool.file}`).join("; ")}) ${constraints.exclude.length > 0 ? `are excluded by --exclude ${constraints.exclude.join(",")} or ` : ""}have no fragments for type ${type} in ${languages.join(", ")}`;
    throw new ConfigError(`--require ${tag}: no usable pool can satisfy it for type ${type}: ${why}`);
  }
  return usable;
}
