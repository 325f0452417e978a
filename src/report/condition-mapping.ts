/**
 * Which condition of run A is compared with which condition of run B (`aeb compare --map`).
 * Without a mapping, conditions pair up by name. A mapping `NAME_A=NAME_B` pairs two conditions
 * whatever their names (a baseline and its RL checkpoint, named after their models); the names a
 * mapping mentions are then taken out of the matching by name on their side, and every other
 * condition still pairs with its namesake.
 */
import { ConfigError } from "../core/errors.js";

/** One `NAME_A=NAME_B` of `--map`: condition `a` of run A is compared with condition `b` of run B. */
export interface ConditionMapping {
  a: string;
  b: string;
}

/** A pair of conditions to compare; `mapped` when a `--map` entry made it (rather than equal names). */
export interface ConditionPair extends ConditionMapping {
  mapped: boolean;
}

/**
 * Reads one `--map` value: `NAME_A=NAME_B`, or several separated by commas. Condition names of
 * `aeb run` cannot hold `=` or `,` (letters, digits, `.`, `_`, `-`), so neither is ambiguous.
 */
export function parseConditionMappings(value: string): ConditionMapping[] {
  return value.split(",").map((part) => {
    const fields = part.split("=").map((field) => field.trim());
    if (fields.length !== 2 || fields[0] === "" || fields[1] === "") {
      throw new ConfigError(
        `--map expects NAME_A=NAME_B (a condition of run A, then one of run B; several separated by commas), got ${JSON.stringify(part.trim())}`,
      );
    }
    return { a: fields[0] as string, b: fields[1] as string };
  });
}

/** A run's conditions as the mapping checks them: its label (directory) and every condition it has, in its order. */
export interface MappingSide {
  label: string;
  conditions: readonly string[];
}

function requireKnown(name: string, side: MappingSide, which: "A" | "B"): void {
  if (side.conditions.includes(name)) return;
  throw new ConfigError(
    `--map names condition "${name}" of run ${which} (${side.label}), which has no such condition; its conditions are: ${side.conditions.join(", ") || "none"}`,
  );
}

/**
 * The pairs of conditions to compare, in A's condition order (a condition of A mapped to several of
 * B gives a pair for each, in the order of `--map`). Every name in `mappings` must be a condition
 * of its run, and no pair may be listed twice; otherwise a {@link ConfigError} says which.
 */
export function pairConditions(a: MappingSide, b: MappingSide, mappings: readonly ConditionMapping[] = []): ConditionPair[] {
  const seen = new Set<string>();
  for (const mapping of mappings) {
    requireKnown(mapping.a, a, "A");
    requireKnown(mapping.b, b, "B");
    const key = `${mapping.a}\u0000${mapping.b}`;
    if (seen.has(key)) throw new ConfigError(`--map lists ${mapping.a}=${mapping.b} twice`);
    seen.add(key);
  }
  const mappedA = new Set(mappings.map((mapping) => mapping.a));
  const mappedB = new Set(mappings.map((mapping) => mapping.b));
  const pairs: ConditionPair[] = [];
  for (const name of a.conditions) {
    if (mappedA.has(name)) {
      for (const mapping of mappings) if (mapping.a === name) pairs.push({ ...mapping, mapped: true });
    } else if (!mappedB.has(name) && b.conditions.includes(name)) {
      pairs.push({ a: name, b: name, mapped: false });
    }
  }
  return pairs;
}
