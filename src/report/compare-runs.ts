/**
 * `aeb compare`: the same condition in two runs, dialogue by dialogue. Dialogues are matched on
 * (condition, scenario id, repeat); errored dialogues are left out (and counted) on both sides, so
 * a pair exists only where both runs scored that dialogue. A pure function of the two records.
 * Conditions pair up by name, or as a mapping says (`--map NAME_A=NAME_B`, condition-mapping.ts).
 *
 * Each side names the simulated user of each condition. Runs scored by different simulated users
 * are compared all the same (that is how a model is compared across simulators), but the table
 * shows both users and the comparison carries a warning: the difference then mixes whatever
 * changed in the agent with the simulators' disagreement (`aeb agreement` measures the latter).
 * Likewise runs of different seeds: matched dialogues whose seeds differ met different
 * simulated-user randomness, which the comparison warns about with both run seeds.
 */
import type { DialogueRecord } from "../core/dialogue.js";
import { deriveSeed } from "../core/random.js";
import { MIN_N_FOR_INTERVAL } from "../analysis/condition-summary.js";
import { mean } from "../metrics/dialogue-metrics.js";
import { bootstrapMeanCI } from "../stats/bootstrap.js";
import { wilcoxonSignedRank } from "../stats/wilcoxon.js";
import { pairConditions, type ConditionMapping } from "./condition-mapping.js";
import { fixed, formatP, markdownTable, markdownText, textTable } from "./format.js";

/**
 * Why pairs of different seeds matter: a dialogue's seed (the run seed, the scenario and the
 * repeat) draws the simulated user's randomness, so two runs of one seed give each matched pair the
 * same draws and B - A is the agents' difference alone.
 */
function seedWarning(seeds: NonNullable<RunComparison["differentSeeds"]>): string {
  const named =
    seeds.runSeedA !== null && seeds.runSeedB !== null && seeds.runSeedA !== seeds.runSeedB
      ? ` (A ran with seed ${seeds.runSeedA}, B with seed ${seeds.runSeedB})`
      : "";
  const rerun =
    seeds.runSeedA !== null
      ? `; rerun B with --seed ${seeds.runSeedA} (or the same config seed) for a like-for-like comparison`
      : "; rerun them with the same --seed for a like-for-like comparison";
  return `the runs used different seeds${named}: ${seeds.pairs} of ${seeds.matched} matched dialogue(s) met different simulated-user randomness, so B - A mixes the agents' difference with the luck of the draw and its interval is wider than a same-seed comparison's${rerun}`;
}

export interface RunSide {
  /** How the run is named in the output (its directory). */
  label: string;
  records: readonly DialogueRecord[];
  /** The run's condition order (from run.json); conditions it does not name follow alphabetically. */
  conditionOrder?: readonly string[];
  /** The simulated user of each condition (interop/simulated-users.ts); `unknown` when not given. */
  simulatedUser?: (condition: string) => string;
  /** The run seed (run.json's config, else summary.json), when the directory records one: named in the seed warning. */
  runSeed?: number;
}

export interface ConditionComparison {
  /** The condition of run A. */
  condition: string;
  /** The condition of run B it is compared with: the same name, unless a mapping (`--map`) paired them. */
  conditionB: string;
  /** True when a mapping paired the two conditions (their names may still be equal: `--map x=x`). */
  mapped: boolean;
  /** The simulated user that scored this condition in A, and in B. */
  simulatedUserA: string;
  simulatedUserB: string;
  /** Dialogues scored in both runs (same scenario and repeat). */
  matched: number;
  /** Scored dialogues of this condition with no partner in the other run. */
  unmatchedA: number;
  unmatchedB: number;
  /** Mean FS over the matched dialogues only, in each run. */
  fsMeanA: number;
  fsMeanB: number;
  /** Mean of the matched differences FS(B) - FS(A). */
  difference: number;
  /** Seeded paired percentile-bootstrap 95% CI of that mean; null below two pairs. */
  ci95: [number, number] | null;
  /**
   * Two-sided Wilcoxon signed-rank p over the matched differences (scipy.stats.wilcoxon defaults);
   * null below two pairs or when undefined (every difference zero).
   */
  wilcoxonP: number | null;
  /** The matched differences, in (scenario, repeat) order. */
  differences: Array<{ scenarioId: string; repeat: number; a: number; b: number; difference: number }>;
}

export interface RunComparison {
  a: { label: string; dialogues: number; errors: number };
  b: { label: string; dialogues: number; errors: number };
  /** Scenario ids scored in both runs (any condition). */
  sharedScenarios: string[];
  /** The mapping of condition names that was asked for (`--map`), in its order; empty when conditions pair by name only. */
  mapping: ConditionMapping[];
  conditions: ConditionComparison[];
  onlyInA: string[];
  onlyInB: string[];
  /** Conditions compared across two different simulated users (each has a warning). */
  acrossSimulatedUsers: string[];
  /**
   * Matched dialogues whose seeds differ (the runs used different run seeds, so a pair met
   * different simulated-user randomness), with the run seeds when recorded; null when every
   * matched pair shares its seed.
   */
  differentSeeds: { pairs: number; matched: number; runSeedA: number | null; runSeedB: number | null } | null;
  /** Said loudly (stderr, and first in the written comparison): the comparisons that cross simulated users, and runs of different seeds. */
  warnings: string[];
  notes: string[];
}

const unknownUser = () => "unknown";

const key = (record: DialogueRecord) => `${record.scenarioId}\u0000${String(record.repeat).padStart(9, "0")}`;

function byKey(records: readonly DialogueRecord[]): Map<string, DialogueRecord> {
  const map = new Map<string, DialogueRecord>();
  for (const record of [...records].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)))
    if (!map.has(key(record))) map.set(key(record), record);
  return map;
}

function ordered(names: Set<string>, order: readonly string[]): string[] {
  return [...order.filter((name) => names.has(name)), ...[...names].filter((name) => !order.includes(name)).sort()];
}

/** The condition as the tables name it: `x`, or `x / y` when A's condition x is compared with B's y. */
export function conditionLabel(row: Pick<ConditionComparison, "condition" | "conditionB">): string {
  return row.condition === row.conditionB ? row.condition : `${row.condition} / ${row.conditionB}`;
}

function wilcoxonPOf(differences: readonly number[]): number | null {
  if (differences.length < 2) return null;
  const p = wilcoxonSignedRank(differences).p;
  return Number.isFinite(p) ? p : null;
}

/**
 * Compares every condition present in both runs (by name), or the pairs `mapping` names with the
 * rest by name; `seed` seeds the paired bootstraps. A mapping that names a condition a run does not
 * have is a ConfigError listing the run's conditions.
 */
export function compareRuns(a: RunSide, b: RunSide, options: { seed?: number; mapping?: readonly ConditionMapping[] } = {}): RunComparison {
  const seed = options.seed ?? 1;
  const mapping = [...(options.mapping ?? [])];
  const scoredA = a.records.filter((record) => record.status === "done");
  const scoredB = b.records.filter((record) => record.status === "done");
  const scenariosB = new Set(scoredB.map((record) => record.scenarioId));
  const sharedScenarios = [...new Set(scoredA.map((record) => record.scenarioId))].filter((id) => scenariosB.has(id)).sort();
  const conditionsA = ordered(new Set(scoredA.map((record) => record.condition)), a.conditionOrder ?? []);
  const conditionsB = ordered(new Set(scoredB.map((record) => record.condition)), b.conditionOrder ?? []);
  /** Every condition a run has (run.json's, and any with dialogues, scored or not): what a mapping may name. */
  const knownOf = (side: RunSide) =>
    ordered(new Set([...(side.conditionOrder ?? []), ...side.records.map((record) => record.condition)]), side.conditionOrder ?? []);
  // A pair by name needs scored dialogues on both sides; a mapped pair is shown whatever it holds (a note says when nothing matched).
  const pairs = pairConditions({ label: a.label, conditions: knownOf(a) }, { label: b.label, conditions: knownOf(b) }, mapping).filter(
    (pair) => pair.mapped || (conditionsA.includes(pair.a) && conditionsB.includes(pair.b)),
  );

  const conditions: ConditionComparison[] = [];
  let matchedPairs = 0;
  let pairsOfOtherSeeds = 0;
  for (const pair of pairs) {
    const condition = pair.a;
    const mapA = byKey(scoredA.filter((record) => record.condition === pair.a));
    const mapB = byKey(scoredB.filter((record) => record.condition === pair.b));
    const keys = [...mapA.keys()].filter((item) => mapB.has(item)).sort();
    const differences = keys.map((item) => {
      const left = mapA.get(item) as DialogueRecord;
      const right = mapB.get(item) as DialogueRecord;
      return {
        scenarioId: left.scenarioId,
        repeat: left.repeat,
        a: left.final.fs,
        b: right.final.fs,
        difference: right.final.fs - left.final.fs,
      };
    });
    const values = differences.map((pair) => pair.difference);
    matchedPairs += keys.length;
    pairsOfOtherSeeds += keys.filter((item) => (mapA.get(item) as DialogueRecord).seed !== (mapB.get(item) as DialogueRecord).seed).length;
    conditions.push({
      condition,
      conditionB: pair.b,
      mapped: pair.mapped,
      simulatedUserA: (a.simulatedUser ?? unknownUser)(pair.a),
      simulatedUserB: (b.simulatedUser ?? unknownUser)(pair.b),
      matched: keys.length,
      unmatchedA: mapA.size - keys.length,
      unmatchedB: mapB.size - keys.length,
      fsMeanA: mean(differences.map((pair) => pair.a)),
      fsMeanB: mean(differences.map((pair) => pair.b)),
      difference: mean(values),
      // A pair of one name keeps the seed it always had; a mapped pair of two names derives its own from both.
      ci95:
        values.length >= MIN_N_FOR_INTERVAL
          ? bootstrapMeanCI(values, {
              seed: pair.a === pair.b ? deriveSeed(seed, "compare", condition) : deriveSeed(seed, "compare", pair.a, pair.b),
            }).ci95
          : null,
      wilcoxonP: wilcoxonPOf(values),
      differences,
    });
  }

  const acrossSimulatedUsers = conditions.filter((row) => row.simulatedUserA !== row.simulatedUserB);
  const warnings = acrossSimulatedUsers.map(
    (row) =>
      `${conditionLabel(row)}: A was scored by the simulated user ${row.simulatedUserA} and B by ${row.simulatedUserB}; B - A mixes any change in the agent with the two simulated users' disagreement (aeb agreement measures it), so read it as a comparison of simulators as much as of runs`,
  );
  const differentSeeds =
    pairsOfOtherSeeds === 0
      ? null
      : { pairs: pairsOfOtherSeeds, matched: matchedPairs, runSeedA: a.runSeed ?? null, runSeedB: b.runSeed ?? null };
  if (differentSeeds !== null) warnings.push(seedWarning(differentSeeds));
  const notes: string[] = [];
  const errorsA = a.records.length - scoredA.length;
  const errorsB = b.records.length - scoredB.length;
  if (errorsA + errorsB > 0) notes.push(`dialogues that ended in error are left out: ${errorsA} in A, ${errorsB} in B`);
  for (const row of conditions) {
    const label = conditionLabel(row);
    if (row.matched === 0) notes.push(`${label}: no dialogue matches (same scenario and repeat) in both runs`);
    else if (row.ci95 === null) notes.push(`${label}: only ${row.matched} matched dialogue; no interval is given`);
    if (row.unmatchedA + row.unmatchedB > 0)
      notes.push(`${label}: ${row.unmatchedA} dialogue(s) only in A and ${row.unmatchedB} only in B are left out`);
  }
  const comparedA = new Set(conditions.map((row) => row.condition));
  const comparedB = new Set(conditions.map((row) => row.conditionB));
  return {
    a: { label: a.label, dialogues: a.records.length, errors: errorsA },
    b: { label: b.label, dialogues: b.records.length, errors: errorsB },
    sharedScenarios,
    mapping,
    conditions,
    onlyInA: conditionsA.filter((name) => !comparedA.has(name)),
    onlyInB: conditionsB.filter((name) => !comparedB.has(name)),
    acrossSimulatedUsers: acrossSimulatedUsers.map(conditionLabel),
    differentSeeds,
    warnings,
    notes,
  };
}

export const COMPARISON_HEADER = [
  "condition",
  "simulated user (A / B)",
  "n matched",
  "FS A",
  "FS B",
  "B - A",
  "95% CI (paired bootstrap)",
  "Wilcoxon p",
];

export function comparisonRows(comparison: RunComparison): string[][] {
  return comparison.conditions.map((row) => [
    conditionLabel(row),
    row.simulatedUserA === row.simulatedUserB ? row.simulatedUserA : `${row.simulatedUserA} / ${row.simulatedUserB} (differ)`,
    String(row.matched),
    fixed(row.fsMeanA),
    fixed(row.fsMeanB),
    row.matched === 0 ? "n/a" : `${row.difference >= 0 ? "+" : ""}${fixed(row.difference)}`,
    row.ci95 === null ? (row.matched === 0 ? "n/a" : "n too small for CI") : `[${fixed(row.ci95[0])}, ${fixed(row.ci95[1])}]`,
    row.wilcoxonP === null ? "n/a" : formatP(row.wilcoxonP),
  ]);
}

/** What was matched with what: one line, naming the mapping of condition names when there is one. */
function matchingLine(comparison: RunComparison): string {
  const scenarios = `${comparison.sharedScenarios.length} scenario(s) in both runs`;
  if (comparison.mapping.length === 0) return `matched on condition, scenario and repeat; ${scenarios}`;
  const mapped = comparison.mapping.map((entry) => `${entry.a} (A) with ${entry.b} (B)`).join(", ");
  return `matched on condition, scenario and repeat, conditions mapped by --map: ${mapped}; every other condition with its namesake; ${scenarios}`;
}

/** The lines around the table that say what was compared and what was left out (and, with `warnings`, what crosses simulated users). */
function comparisonLines(comparison: RunComparison, withWarnings: boolean): string[] {
  const lines: string[] = withWarnings ? comparison.warnings.map((warning) => `warning: ${warning}`) : [];
  if (comparison.onlyInA.length > 0) lines.push(`conditions of A not compared: ${comparison.onlyInA.join(", ")}`);
  if (comparison.onlyInB.length > 0) lines.push(`conditions of B not compared: ${comparison.onlyInB.join(", ")}`);
  lines.push(...comparison.notes);
  return lines;
}

/** The comparison for a terminal (its warnings go to stderr, see {@link RunComparison.warnings}). */
export function renderComparisonText(comparison: RunComparison): string {
  return [
    `A: ${comparison.a.label} (${comparison.a.dialogues} dialogues)`,
    `B: ${comparison.b.label} (${comparison.b.dialogues} dialogues)`,
    matchingLine(comparison),
    "",
    textTable(COMPARISON_HEADER, comparisonRows(comparison)),
    "",
    ...comparisonLines(comparison, false),
  ]
    .join("\n")
    .trimEnd();
}

/** The comparison as a markdown document (`aeb compare --out FILE.md`). */
export function renderComparisonMarkdown(comparison: RunComparison): string {
  return [
    "# AEB run comparison",
    "",
    `- A: ${markdownText(comparison.a.label)} (${comparison.a.dialogues} dialogues)`,
    `- B: ${markdownText(comparison.b.label)} (${comparison.b.dialogues} dialogues)`,
    `- ${markdownText(matchingLine(comparison))}`,
    "",
    markdownTable(COMPARISON_HEADER, comparisonRows(comparison)),
    "",
    `${comparison.conditions.some((row) => row.condition !== row.conditionB) ? "A condition named x / y is A's x compared with B's y (--map). " : ""}B - A is the mean of the matched differences FS(B) - FS(A); its 95% CI is a seeded percentile bootstrap over the matched pairs; the p-value is a two-sided Wilcoxon signed-rank test on the same differences (n/a when every difference is zero).`,
    "",
    ...comparisonLines(comparison, true).map((line) => `- ${markdownText(line)}`),
    "",
  ].join("\n");
}
