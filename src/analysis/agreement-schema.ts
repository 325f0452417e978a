import { z } from "zod";

/**
 * The schema of agreement.json (`aeb agreement --out DIR`): how far two or more simulated users
 * agree on the same agents. Types are inferred from it. A number that is undefined for the data
 * (a correlation of tied values, an interval of fewer than two values) is null, and a note says
 * why. docs/agreement.md explains every field.
 */

const interval = z.tuple([z.number(), z.number()]);

/** The class of a dialogue's outcome under its preset: it ended in success, in collapse, or neither. */
export const OutcomeClassSchema = z.enum(["success", "collapse", "neither"]);
export type OutcomeClass = z.infer<typeof OutcomeClassSchema>;

/** A dialogue that one simulated user scored and the other did not (matched on condition, scenario and repeat). */
export const UnmatchedDialogueSchema = z.strictObject({
  agent: z.string(),
  scenarioId: z.string(),
  repeat: z.number().int().min(0),
  /** `a` or `b`: the simulated user that has it. */
  in: z.enum(["a", "b"]),
});
export type UnmatchedDialogue = z.infer<typeof UnmatchedDialogueSchema>;

/** One dialogue scored by both simulated users: the pair the per-dialogue figures and the scatter chart are made of. */
export const MatchedDialogueSchema = z.strictObject({
  agent: z.string(),
  scenarioId: z.string(),
  repeat: z.number().int().min(0),
  /** Final emotion (0-100) under A and under B. */
  finalA: z.number(),
  finalB: z.number(),
  outcomeA: OutcomeClassSchema,
  outcomeB: OutcomeClassSchema,
});
export type MatchedDialogue = z.infer<typeof MatchedDialogueSchema>;

/** Counts of matched dialogues by outcome under A (first key) and under B (second key). */
export const OutcomeTableSchema = z.record(OutcomeClassSchema, z.record(OutcomeClassSchema, z.number().int().min(0)));

/** Per-dialogue agreement over matched dialogues: final emotions under A against under B. */
export const DialogueAgreementSchema = z.strictObject({
  /** Matched dialogues. */
  n: z.number().int().min(0),
  /** Pearson r of the final emotions under A and under B (scipy.stats.pearsonr); null below 3 dialogues or when one side is constant. */
  pearson: z.number().nullable(),
  /** Spearman rho of the same (scipy.stats.spearmanr); null likewise. */
  spearman: z.number().nullable(),
  /** Matched dialogues that ended in the same outcome class under both simulated users. */
  sameOutcome: z.number().int().min(0),
  /** sameOutcome / n; null when n is 0. */
  sameOutcomeShare: z.number().nullable(),
  outcomes: OutcomeTableSchema,
});
export type DialogueAgreement = z.infer<typeof DialogueAgreementSchema>;

/** One agent (condition) scored by both simulated users. */
export const AgentAgreementSchema = DialogueAgreementSchema.extend({
  agent: z.string(),
  /** This agent's dialogues scored under A only, and under B only (left out, listed in `unmatched`). */
  onlyInA: z.number().int().min(0),
  onlyInB: z.number().int().min(0),
  /** Mean final emotion (0-100) over the matched dialogues, under A and under B. */
  meanA: z.number().nullable(),
  meanB: z.number().nullable(),
  /** The level shift: mean of B - A over the matched dialogues, with a seeded paired percentile-bootstrap 95% interval (null below two pairs). */
  shift: z.strictObject({ mean: z.number().nullable(), ci95: interval.nullable() }),
});
export type AgentAgreement = z.infer<typeof AgentAgreementSchema>;

/** A rank correlation of the agents' means under A and under B, with its bootstrap interval. */
export const RankCorrelationSchema = z.strictObject({
  value: z.number(),
  /** Seeded percentile bootstrap over the units, resampled with replacement; null when no resample was defined or there are fewer than two units. */
  ci95: interval.nullable(),
  /** Resamples in which the correlation was undefined (agents' means tied), left out of the interval. */
  undefinedResamples: z.number().int().min(0),
});

/** How the two simulated users rank the shared agents. */
export const RankAgreementSchema = z.strictObject({
  /** Units (scenario, repeat) matched for every shared agent under both users: the agents' means are taken over these, so both users rank the agents on the same profiles. */
  units: z.number().int().min(0),
  /** Per shared agent: its mean final emotion over the units under A and under B, and its rank (1 = highest, ties averaged). */
  agents: z.array(z.strictObject({ agent: z.string(), meanA: z.number(), meanB: z.number(), rankA: z.number(), rankB: z.number() })),
  /** Spearman rho of the agents' means (scipy.stats.spearmanr); null below three shared agents or when undefined. */
  spearman: RankCorrelationSchema.nullable(),
  /** Kendall tau-b of the same (scipy.stats.kendalltau); null likewise. */
  kendall: RankCorrelationSchema.nullable(),
  /** Whether both users order every pair of shared agents the same way (tau-b = 1); null when not computed. */
  sameOrder: z.boolean().nullable(),
});
export type RankAgreement = z.infer<typeof RankAgreementSchema>;

/** Agreement of one pair of simulated users, A and B. */
export const PairAgreementSchema = z.strictObject({
  a: z.string(),
  b: z.string(),
  /** Agents (condition names) both users scored, in A's order. */
  sharedAgents: z.array(z.string()),
  /** Agents only one user scored (not compared). */
  agentsOnlyInA: z.array(z.string()),
  agentsOnlyInB: z.array(z.string()),
  /** Dialogues of the shared agents scored by both users. */
  matchedDialogues: z.number().int().min(0),
  /** Every matched dialogue, by agent (in `sharedAgents` order), then scenario and repeat. */
  matched: z.array(MatchedDialogueSchema),
  /** Dialogues of the shared agents scored by one user only, every one listed. */
  unmatched: z.array(UnmatchedDialogueSchema),
  ranking: RankAgreementSchema,
  agents: z.array(AgentAgreementSchema),
  /** Every matched dialogue of every shared agent together. */
  pooled: DialogueAgreementSchema,
  /** The finding in words, as the reports state it. */
  finding: z.string(),
  /** Plain-language caveats: too little data for a figure, unmatched dialogues... */
  notes: z.array(z.string()),
});
export type PairAgreement = z.infer<typeof PairAgreementSchema>;

/** One simulated user as it was read. */
export const SimulatedUserSummarySchema = z.strictObject({
  label: z.string(),
  /** The paths it was read from. */
  sources: z.array(z.string()),
  /** Scored dialogues. */
  dialogues: z.number().int().min(0),
  /** Dialogues that ended in error, left out. */
  errors: z.number().int().min(0),
  /** Agents (conditions) it scored, in order of first appearance. */
  agents: z.array(z.string()),
});

export const AgreementReportSchema = z.strictObject({
  format: z.literal(1),
  /** The seed every bootstrap seed derives from. */
  seed: z.number().int().min(0),
  /** Bootstrap resamples per interval. */
  resamples: z.number().int().min(1),
  users: z.array(SimulatedUserSummarySchema),
  /** Every pair of simulated users, in argument order. */
  pairs: z.array(PairAgreementSchema),
});
export type AgreementReport = z.infer<typeof AgreementReportSchema>;
