/**
 * The finding of an agreement in words, as the reports state it under their tables: how the two
 * simulated users rank the shared agents, how far final emotions on the same profile agree, and
 * which way the level shifts. Wording only: every number is one of the pair's figures.
 */
import type { PairAgreement } from "./agreement-schema.js";

/** A rank agreement at least this strong is "high" for the wording ("but ... only"). */
const HIGH_RANK_AGREEMENT = 0.8;
/** Per-dialogue correlations all below this read as weak beside a high rank agreement. */
const WEAK_DIALOGUE_AGREEMENT = 0.7;

const two = (value: number) => value.toFixed(2);
const points = (value: number) => Math.abs(value).toFixed(1);

function range(values: readonly number[], format: (value: number) => string, separator = "-"): string {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return format(low) === format(high) ? format(low) : `${format(low)}${separator}${format(high)}`;
}

export function agreementFinding(pair: Omit<PairAgreement, "finding">): string {
  const users = `The two simulated users (A: ${pair.a}, B: ${pair.b})`;
  const shared = pair.sharedAgents.length;
  if (shared === 0) return `${users} share no agent (agents are matched by condition name): nothing to compare.`;
  if (pair.matchedDialogues === 0)
    return `${users} share ${shared} agent(s) but no dialogue (matched on scenario and repeat): nothing to compare.`;

  const { spearman, kendall, sameOrder } = pair.ranking;
  let rank: string;
  if (spearman !== null && kendall !== null) {
    const interval = spearman.ci95 === null ? "" : `, 95% CI [${two(spearman.ci95[0])}, ${two(spearman.ci95[1])}]`;
    rank =
      sameOrder === true
        ? `rank the ${shared} shared agents identically (Spearman ${two(spearman.value)}, Kendall tau-b ${two(kendall.value)}${interval})`
        : `rank the ${shared} shared agents with Spearman ${two(spearman.value)}${interval} and Kendall tau-b ${two(kendall.value)}`;
  } else {
    rank = `share ${shared} agent(s), ${shared < 3 ? "too few to compare their ranking" : "whose ranking cannot be compared"}`;
  }

  const correlations = pair.agents.map((agent) => agent.pearson).filter((value): value is number => value !== null);
  let dialogues: string;
  if (correlations.length === 0) dialogues = "; final emotions on the same profile cannot be correlated (too few, or constant)";
  else {
    const contrast = spearman !== null && spearman.value >= HIGH_RANK_AGREEMENT && Math.max(...correlations) < WEAK_DIALOGUE_AGREEMENT;
    const pooled = pair.pooled.pearson === null || correlations.length === 1 ? "" : `; ${two(pair.pooled.pearson)} pooled`;
    dialogues = `, ${contrast ? "but" : "and"} final emotions on the same profile correlate ${contrast ? "only " : ""}${range(correlations, two)} (Pearson${correlations.length > 1 ? ", per agent" : ""}${pooled})`;
  }
  const share =
    pair.pooled.sameOutcomeShare === null
      ? ""
      : `, and ${Math.round(pair.pooled.sameOutcomeShare * 100)}% of the ${pair.matchedDialogues} matched dialogues end in the same outcome class (success, collapse or neither)`;

  const shifts = pair.agents.map((agent) => agent.shift.mean).filter((value): value is number => value !== null);
  let shift = "";
  if (shifts.length > 0) {
    const every = shifts.length === shared ? (shared === 1 ? "the agent" : "every agent") : `${shifts.length} agents`;
    if (shifts.every((value) => value > 0))
      shift = ` ${pair.b} scores ${every} higher than ${pair.a}, by ${range(shifts, points, " to ")} points of final emotion.`;
    else if (shifts.every((value) => value < 0))
      shift = ` ${pair.b} scores ${every} lower than ${pair.a}, by ${range(shifts, points, " to ")} points of final emotion.`;
    else
      shift = ` The level shift (B - A) ranges from ${Math.min(...shifts).toFixed(1)} to ${Math.max(...shifts).toFixed(1)} points of final emotion.`;
  }
  return `${users} ${rank}${dialogues}${share}.${shift}`;
}
