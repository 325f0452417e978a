/**
 * How well simulated users agree on the same agents (`aeb agreement`): a pure function of the
 * dialogues each user scored. Agents are matched by condition name, dialogues by (condition,
 * scenario id, repeat). For each pair of users A and B:
 *
 * - rank agreement: the agents' mean final emotions under A and under B, over the units
 *   (scenario, repeat) every shared agent has under both users, compared by Spearman's rho and
 *   Kendall's tau-b, with seeded percentile-bootstrap intervals that resample those units;
 * - the level shift per agent: mean final emotion under B minus under A over its matched
 *   dialogues, with a seeded paired percentile-bootstrap interval;
 * - per-dialogue agreement on matched dialogues: Pearson and Spearman correlation of the final
 *   emotions, per agent and pooled, and the share that ended in the same outcome class.
 *
 * Unmatched agents and dialogues are counted and listed, never dropped silently; too little data
 * gives null and a note, never NaN. docs/agreement.md describes every figure;
 * scripts/make-agreement-vectors.py computes them again with scipy.
 */
import { AebError } from "../core/errors.js";
import { deriveSeed } from "../core/random.js";
import { bootstrapMeanCI, bootstrapStatisticCI } from "../stats/bootstrap.js";
import { kendallTauB } from "../stats/kendall.js";
import { pearson } from "../stats/pearson.js";
import { averageRanks } from "../stats/ranks.js";
import { spearman } from "../stats/spearman.js";
import type {
  AgentAgreement,
  AgreementReport,
  DialogueAgreement,
  OutcomeClass,
  PairAgreement,
  RankAgreement,
  UnmatchedDialogue,
} from "./agreement-schema.js";
import { agreementFinding } from "./agreement-finding.js";

export type { AgreementReport, PairAgreement, OutcomeClass } from "./agreement-schema.js";

/** One dialogue as the agreement reads it: who, which profile, how it ended. */
export interface AgreementDialogue {
  /** The agent: the run's condition, or a SAGE file's name without `_result.jsonl`. */
  condition: string;
  scenarioId: string;
  repeat: number;
  status: "done" | "error";
  /** Final emotion, 0-100. */
  finalEmotion: number;
  outcome: OutcomeClass;
}

/** One simulated user's results: every dialogue it scored, from one or more sources. */
export interface SimulatedUserResults {
  label: string;
  sources: string[];
  dialogues: AgreementDialogue[];
}

export interface AgreementOptions {
  /** Every bootstrap seed derives from it. */
  seed: number;
  /** Bootstrap resamples per interval (10,000 by default). */
  resamples?: number;
}

export const DEFAULT_AGREEMENT_RESAMPLES = 10_000;
/** Below this many pairs a correlation is not given (with two it is always ±1). */
export const MIN_PAIRS_FOR_CORRELATION = 3;
/** Below this many shared agents the rank correlation is not given (with two it is always ±1). */
export const MIN_AGENTS_FOR_RANKING = 3;

const OUTCOMES: readonly OutcomeClass[] = ["success", "collapse", "neither"];

/** The outcome class of an end reason: success, collapse, or neither (max_turns, user_left). */
export function outcomeOfEndReason(endReason: string): OutcomeClass {
  return endReason === "success" ? "success" : endReason === "collapse" ? "collapse" : "neither";
}

const unitKey = (dialogue: { scenarioId: string; repeat: number }) => `${dialogue.scenarioId}\u0000${dialogue.repeat}`;
/** Units in (scenario id, repeat) order, ids compared by code unit (as Python compares ASCII ids). */
const byUnit = (x: { scenarioId: string; repeat: number }, y: { scenarioId: string; repeat: number }) =>
  x.scenarioId < y.scenarioId ? -1 : x.scenarioId > y.scenarioId ? 1 : x.repeat - y.repeat;

/** A user's scored dialogues by agent, then by unit; a unit scored twice for one agent is an error naming it. */
function indexUser(user: SimulatedUserResults): { agents: string[]; byAgent: Map<string, Map<string, AgreementDialogue>> } {
  const byAgent = new Map<string, Map<string, AgreementDialogue>>();
  for (const dialogue of user.dialogues) {
    if (dialogue.status !== "done") continue;
    const units = byAgent.get(dialogue.condition) ?? new Map<string, AgreementDialogue>();
    if (units.has(unitKey(dialogue))) {
      throw new AebError(
        `simulated user ${user.label} has two scored dialogues of agent ${dialogue.condition} on scenario ${dialogue.scenarioId}, repeat ${dialogue.repeat}; each (agent, scenario, repeat) must be scored once per user`,
      );
    }
    units.set(unitKey(dialogue), dialogue);
    byAgent.set(dialogue.condition, units);
  }
  return { agents: [...byAgent.keys()], byAgent };
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const defined = (value: number) => (Number.isNaN(value) ? null : value);

function emptyOutcomeTable(): Record<OutcomeClass, Record<OutcomeClass, number>> {
  return Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Object.fromEntries(OUTCOMES.map((other) => [other, 0]))])) as Record<
    OutcomeClass,
    Record<OutcomeClass, number>
  >;
}

/** Correlations and outcome agreement of matched pairs; `what` names them in the notes. */
function dialogueAgreement(pairs: ReadonlyArray<[AgreementDialogue, AgreementDialogue]>, what: string, notes: string[]): DialogueAgreement {
  const finalsA = pairs.map(([left]) => left.finalEmotion);
  const finalsB = pairs.map(([, right]) => right.finalEmotion);
  const outcomes = emptyOutcomeTable();
  for (const [left, right] of pairs) outcomes[left.outcome][right.outcome] += 1;
  const sameOutcome = pairs.filter(([left, right]) => left.outcome === right.outcome).length;
  let pearsonR: number | null = null;
  let spearmanRho: number | null = null;
  if (pairs.length === 0) {
    // Nothing matched: said once for the pair, not per figure.
  } else if (pairs.length < MIN_PAIRS_FOR_CORRELATION) {
    notes.push(
      `${what}: only ${pairs.length} matched dialogue(s); no correlation is given (at least ${MIN_PAIRS_FOR_CORRELATION} are needed)`,
    );
  } else {
    pearsonR = defined(pearson(finalsA, finalsB).r);
    spearmanRho = defined(spearman(finalsA, finalsB).rho);
    if (pearsonR === null)
      notes.push(
        `${what}: the final emotions are all equal under one of the simulated users, so they cannot correlate; no correlation is given`,
      );
  }
  return {
    n: pairs.length,
    pearson: pearsonR,
    spearman: spearmanRho,
    sameOutcome,
    sameOutcomeShare: pairs.length === 0 ? null : sameOutcome / pairs.length,
    outcomes,
  };
}

/** Ranks with 1 for the highest value, ties averaged. */
function descendingRanks(values: readonly number[]): number[] {
  return averageRanks(values).ranks.map((rank) => values.length + 1 - rank);
}

/** Spearman or Kendall of the agents' means, with its bootstrap interval over the units. */
function rankCorrelation(
  finalsA: ReadonlyArray<readonly number[]>,
  finalsB: ReadonlyArray<readonly number[]>,
  correlate: (x: number[], y: number[]) => number,
  seed: number,
  resamples: number,
): { value: number; ci95: [number, number] | null; undefinedResamples: number } | null {
  const units = finalsA[0]?.length ?? 0;
  const meansOf = (finals: ReadonlyArray<readonly number[]>, indices: readonly number[]) =>
    finals.map((row) => {
      let total = 0;
      for (const index of indices) total += row[index] as number;
      return total / indices.length;
    });
  const all = Array.from({ length: units }, (_, index) => index);
  const value = correlate(meansOf(finalsA, all), meansOf(finalsB, all));
  if (Number.isNaN(value)) return null;
  if (units < 2) return { value, ci95: null, undefinedResamples: 0 };
  const result = bootstrapStatisticCI(units, (indices) => correlate(meansOf(finalsA, indices), meansOf(finalsB, indices)), {
    seed,
    resamples,
  });
  return { value, ci95: result.ci95, undefinedResamples: result.undefinedResamples };
}

/** Agreement of simulated users A and B (see the module's comment). */
export function pairAgreement(a: SimulatedUserResults, b: SimulatedUserResults, options: AgreementOptions): PairAgreement {
  const resamples = options.resamples ?? DEFAULT_AGREEMENT_RESAMPLES;
  const left = indexUser(a);
  const right = indexUser(b);
  const sharedAgents = left.agents.filter((agent) => right.byAgent.has(agent));
  const notes: string[] = [];
  const agentsOnlyInA = left.agents.filter((agent) => !right.byAgent.has(agent));
  const agentsOnlyInB = right.agents.filter((agent) => !left.byAgent.has(agent));
  if (sharedAgents.length === 0)
    notes.push(`no agent was scored by both ${a.label} and ${b.label} (agents are matched by condition name): nothing to compare`);
  if (agentsOnlyInA.length > 0) notes.push(`agent(s) scored by ${a.label} only, not compared: ${agentsOnlyInA.join(", ")}`);
  if (agentsOnlyInB.length > 0) notes.push(`agent(s) scored by ${b.label} only, not compared: ${agentsOnlyInB.join(", ")}`);

  const unmatched: UnmatchedDialogue[] = [];
  const matchedByAgent = new Map<string, Array<[AgreementDialogue, AgreementDialogue]>>();
  const agents: AgentAgreement[] = [];
  for (const agent of sharedAgents) {
    const unitsA = left.byAgent.get(agent) as Map<string, AgreementDialogue>;
    const unitsB = right.byAgent.get(agent) as Map<string, AgreementDialogue>;
    const onlyA = [...unitsA.values()].filter((dialogue) => !unitsB.has(unitKey(dialogue))).sort(byUnit);
    const onlyB = [...unitsB.values()].filter((dialogue) => !unitsA.has(unitKey(dialogue))).sort(byUnit);
    for (const dialogue of onlyA) unmatched.push({ agent, scenarioId: dialogue.scenarioId, repeat: dialogue.repeat, in: "a" });
    for (const dialogue of onlyB) unmatched.push({ agent, scenarioId: dialogue.scenarioId, repeat: dialogue.repeat, in: "b" });
    const pairs = [...unitsA.values()]
      .filter((dialogue) => unitsB.has(unitKey(dialogue)))
      .sort(byUnit)
      .map((dialogue): [AgreementDialogue, AgreementDialogue] => [dialogue, unitsB.get(unitKey(dialogue)) as AgreementDialogue]);
    matchedByAgent.set(agent, pairs);
    const differences = pairs.map(([x, y]) => y.finalEmotion - x.finalEmotion);
    if (pairs.length === 0) notes.push(`${agent}: no dialogue was scored by both simulated users (same scenario and repeat)`);
    else if (pairs.length < 2) notes.push(`${agent}: only one matched dialogue; the level shift has no interval`);
    agents.push({
      agent,
      ...dialogueAgreement(pairs, agent, notes),
      onlyInA: onlyA.length,
      onlyInB: onlyB.length,
      meanA: pairs.length === 0 ? null : mean(pairs.map(([x]) => x.finalEmotion)),
      meanB: pairs.length === 0 ? null : mean(pairs.map(([, y]) => y.finalEmotion)),
      shift: {
        mean: pairs.length === 0 ? null : mean(differences),
        ci95:
          pairs.length < 2
            ? null
            : bootstrapMeanCI(differences, { seed: deriveSeed(options.seed, "agreement", a.label, b.label, "shift", agent), resamples })
                .ci95,
      },
    });
  }
  const unmatchedA = unmatched.filter((dialogue) => dialogue.in === "a").length;
  const unmatchedB = unmatched.length - unmatchedA;
  if (unmatched.length > 0)
    notes.push(
      `${unmatchedA} dialogue(s) of the shared agents were scored by ${a.label} only and ${unmatchedB} by ${b.label} only (same agent, scenario and repeat); they are left out and listed in agreement.json`,
    );

  const ranking = rankAgreement(a, b, sharedAgents, matchedByAgent, options.seed, resamples, notes);
  const pooledPairs = sharedAgents.flatMap((agent) => matchedByAgent.get(agent) ?? []);
  const pooled = dialogueAgreement(pooledPairs, "pooled over the shared agents", notes);
  const pair: Omit<PairAgreement, "finding"> = {
    a: a.label,
    b: b.label,
    sharedAgents,
    agentsOnlyInA,
    agentsOnlyInB,
    matchedDialogues: pooledPairs.length,
    matched: pooledPairs.map(([x, y]) => ({
      agent: x.condition,
      scenarioId: x.scenarioId,
      repeat: x.repeat,
      finalA: x.finalEmotion,
      finalB: y.finalEmotion,
      outcomeA: x.outcome,
      outcomeB: y.outcome,
    })),
    unmatched,
    ranking,
    agents,
    pooled,
    notes,
  };
  return { ...pair, finding: agreementFinding(pair) };
}

/** Rank agreement over the units every shared agent has under both users. */
function rankAgreement(
  a: SimulatedUserResults,
  b: SimulatedUserResults,
  sharedAgents: readonly string[],
  matchedByAgent: ReadonlyMap<string, ReadonlyArray<[AgreementDialogue, AgreementDialogue]>>,
  seed: number,
  resamples: number,
  notes: string[],
): RankAgreement {
  const none: RankAgreement = { units: 0, agents: [], spearman: null, kendall: null, sameOrder: null };
  if (sharedAgents.length === 0) return none;
  const byUnitOf = (agent: string) => new Map((matchedByAgent.get(agent) ?? []).map((pair) => [unitKey(pair[0]), pair]));
  const lookups = sharedAgents.map(byUnitOf);
  const first = matchedByAgent.get(sharedAgents[0] as string) ?? [];
  const units = first.map(([dialogue]) => dialogue).filter((dialogue) => lookups.every((lookup) => lookup.has(unitKey(dialogue))));
  if (units.length === 0) {
    notes.push("no (scenario, repeat) was scored for every shared agent by both simulated users, so the agents are not ranked");
    return none;
  }
  const matchedTotal = sharedAgents.reduce((sum, agent) => sum + (matchedByAgent.get(agent)?.length ?? 0), 0);
  if (matchedTotal > units.length * sharedAgents.length) {
    notes.push(
      `the ranking uses the ${units.length} (scenario, repeat) unit(s) every shared agent has under both simulated users; ${matchedTotal - units.length * sharedAgents.length} other matched dialogue(s) count in the per-agent figures only`,
    );
  }
  const finalsA = lookups.map((lookup) =>
    units.map((unit) => (lookup.get(unitKey(unit)) as [AgreementDialogue, AgreementDialogue])[0].finalEmotion),
  );
  const finalsB = lookups.map((lookup) =>
    units.map((unit) => (lookup.get(unitKey(unit)) as [AgreementDialogue, AgreementDialogue])[1].finalEmotion),
  );
  const meansA = finalsA.map(mean);
  const meansB = finalsB.map(mean);
  const ranksA = descendingRanks(meansA);
  const ranksB = descendingRanks(meansB);
  const agents = sharedAgents.map((agent, index) => ({
    agent,
    meanA: meansA[index] as number,
    meanB: meansB[index] as number,
    rankA: ranksA[index] as number,
    rankB: ranksB[index] as number,
  }));
  if (sharedAgents.length < MIN_AGENTS_FOR_RANKING) {
    notes.push(
      `only ${sharedAgents.length} shared agent(s): no rank correlation is given (at least ${MIN_AGENTS_FOR_RANKING} are needed; with two it is always ±1)`,
    );
    return { units: units.length, agents, spearman: null, kendall: null, sameOrder: null };
  }
  const seedOf = deriveSeed(seed, "agreement", a.label, b.label, "rank");
  const spearmanResult = rankCorrelation(finalsA, finalsB, (x, y) => spearman(x, y).rho, seedOf, resamples);
  const kendallResult = rankCorrelation(finalsA, finalsB, (x, y) => kendallTauB(x, y).tau, seedOf, resamples);
  if (spearmanResult === null)
    notes.push(
      "the shared agents' means are all equal under one simulated user, so their ranks cannot correlate; no rank correlation is given",
    );
  else {
    if (units.length < 2) notes.push("only one (scenario, repeat) unit is shared by every agent: the rank correlations have no interval");
    if (spearmanResult.undefinedResamples > 0)
      notes.push(
        `the rank correlations were undefined in ${spearmanResult.undefinedResamples} of ${resamples} resamples (tied means) and are left out of their intervals`,
      );
  }
  return {
    units: units.length,
    agents,
    spearman: spearmanResult,
    kendall: kendallResult,
    sameOrder: kendallResult === null ? null : kendallResult.value >= 1 - 1e-12,
  };
}

/** Agreement of every pair of simulated users, in argument order. */
export function agreementReport(users: readonly SimulatedUserResults[], options: AgreementOptions): AgreementReport {
  if (users.length < 2) throw new AebError(`agreement needs at least two simulated users, got ${users.length}`);
  const labels = new Set<string>();
  for (const user of users) {
    if (labels.has(user.label)) throw new AebError(`two simulated users are labelled "${user.label}"; name them apart (LABEL=PATH)`);
    labels.add(user.label);
  }
  const pairs: PairAgreement[] = [];
  for (let i = 0; i < users.length; i++)
    for (let j = i + 1; j < users.length; j++)
      pairs.push(pairAgreement(users[i] as SimulatedUserResults, users[j] as SimulatedUserResults, options));
  return {
    format: 1,
    seed: options.seed,
    resamples: options.resamples ?? DEFAULT_AGREEMENT_RESAMPLES,
    users: users.map((user) => {
      const scored = user.dialogues.filter((dialogue) => dialogue.status === "done");
      return {
        label: user.label,
        sources: user.sources,
        dialogues: scored.length,
        errors: user.dialogues.length - scored.length,
        agents: [...new Set(scored.map((dialogue) => dialogue.condition))],
      };
    }),
    pairs,
  };
}
