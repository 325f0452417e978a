import { z } from "zod";

/**
 * The schema of summary.json: what `aeb run`, `aeb judge`, `aeb report --write-summary` and `aeb
 * import` write, and what readers (the reports, scripts, pandas) may rely on. The types of the
 * summary are inferred from it. A number that is undefined for the data (the mean of no value)
 * is written as null, so numbers that can be undefined are nullable here.
 * docs/output-format.md explains every field.
 */

/** A mean that may be undefined (no value), written as null. */
const maybeNumber = z.number().nullable();
const interval = z.tuple([z.number(), z.number()]);

export const MeanWithCISchema = z.strictObject({
  mean: maybeNumber,
  /** Seeded percentile-bootstrap 95% interval; null below two values. */
  ci95: interval.nullable(),
});
export type MeanWithCI = z.infer<typeof MeanWithCISchema>;

/** Dialogues that ended in error with one cause: a failure kind at a stage of the turn (core/dialogue.ts DialogueErrorSchema). */
export const ErrorCauseSchema = z.strictObject({
  kind: z.string(),
  stage: z.string(),
  count: z.number().int().min(1),
  /** Whether a rerun can help (the example's error). */
  retryable: z.boolean(),
  /** The first dialogue (by id) with this cause, and its message. */
  example: z.strictObject({ dialogueId: z.string(), message: z.string() }),
});
export type ErrorCause = z.infer<typeof ErrorCauseSchema>;

export const TypeSummarySchema = z.strictObject({
  n: z.number().int().min(0),
  fsMean: maybeNumber,
  collapseRate: maybeNumber,
  hidMean: maybeNumber,
});

export const EcsJudgeSummarySchema = z.strictObject({
  mean: MeanWithCISchema.nullable(),
  /** Mean ECS over the turns before the manipulation turn. */
  before: maybeNumber,
  /** Mean ECS over the turns from the manipulation turn on. */
  after: maybeNumber,
  /** Mean of before - after per dialogue. */
  drop: maybeNumber,
  /** Dialogues with an ECS from this judge. */
  judged: z.number().int().min(0),
  /** Turns this judge could not read (excluded). */
  judgeErrors: z.number().int().min(0),
});

export const HidJudgeSummarySchema = z.strictObject({
  mean: MeanWithCISchema.nullable(),
  judged: z.number().int().min(0),
  judgeErrors: z.number().int().min(0),
});

/** One entry of summary.json's `conditions`. */
export const ConditionSummarySchema = z.strictObject({
  name: z.string(),
  /** Scored dialogues (status `done`). */
  n: z.number().int().min(0),
  /** Dialogues that ended in error: excluded from every statistic, counted here. */
  errors: z.number().int().min(0),
  /** Final score (final emotion / 100) over scored dialogues. */
  fs: MeanWithCISchema,
  /** Share of scored dialogues that ended in collapse. */
  collapseRate: maybeNumber,
  /** Wilson 95% interval of the collapse rate. */
  collapseCi95: interval.nullable(),
  /** The simulated user's own hidden-intention detection; null when no turn had a verdict. */
  hid: MeanWithCISchema.nullable(),
  /**
   * The headline ECS: the mean of the headline ECS judge (`judges.headlineEcs`, the first ECS judge
   * that is a model); null without one. A heuristic judge's mean is never here, only in `ecsByJudge`.
   */
  ecs: MeanWithCISchema.nullable(),
  meanReplyChars: maybeNumber,
  meanReplyWords: maybeNumber,
  /** Mean visible-reply tokens; present only when every scored dialogue was counted (a tokenizer was set). */
  meanReplyTokens: z.number().optional(),
  meanThinkChars: maybeNumber,
  meanTurns: maybeNumber,
  /** Dialogues per end reason (errored ones included). */
  endReasons: z.record(z.string(), z.number().int().min(0)),
  /** Turns per flag over scored dialogues. */
  flags: z.record(z.string(), z.number().int().min(0)),
  byType: z.record(z.string(), TypeSummarySchema),
  /** ECS per judge, heuristics included (the headline judge's mean is also `ecs`). */
  ecsByJudge: z.record(z.string(), EcsJudgeSummarySchema),
  /** Independent HID judges, reported beside the simulator's HID, never instead. */
  hidByJudge: z.record(z.string(), HidJudgeSummarySchema),
});
export type ConditionSummary = z.infer<typeof ConditionSummarySchema>;

/**
 * The Holm family of a comparison: `reference` for the pairs of the reference condition with every
 * other, `other` for the remaining pairs (every pair when the run has no reference).
 */
export const ComparisonFamilySchema = z.enum(["reference", "other"]);
export type ComparisonFamily = z.infer<typeof ComparisonFamilySchema>;

/** One row of summary.json's `comparisons`. */
export const ComparisonSchema = z.strictObject({
  /** `fs`, `hid`, `ecs` (the headline ECS judge, a model), `ecs:NAME` (any other ECS judge, heuristics included), `hid:NAME`, or `collapse`. */
  metric: z.string(),
  test: z.enum(["mannwhitney", "wilcoxon", "mcnemar"]),
  a: z.string(),
  b: z.string(),
  /** Dialogues (mannwhitney: both sides together), matched scenarios (wilcoxon) or matched pairs (mcnemar). */
  n: z.number().int().min(0),
  p: z.number(),
  /**
   * Holm-adjusted over the comparisons of this metric and test in the same `family` (summaries
   * written before families: over every comparison of this metric and test).
   */
  pHolm: z.number(),
  /**
   * Effect size, positive when A tends to score HIGHER than B for both tests (docs/statistics.md).
   * mannwhitney: rank-biserial r = 2U_A/(nA nB) - 1 = P(A > B) - P(A < B).
   * wilcoxon: matched-pairs rank-biserial (R+ - R-)/(R+ + R-) of the differences A - B.
   * mcnemar: null.
   */
  r: maybeNumber,
  /** |Z|/sqrt(N) (Rosenthal), for mannwhitney and wilcoxon. */
  effectR: maybeNumber,
  meanA: maybeNumber,
  meanB: maybeNumber,
  /** Branch of the test that produced p (exact, permutation, asymptotic). */
  method: z.string().optional(),
  /** mcnemar: discordant counts (A collapsed and B not; B collapsed and A not). */
  discordant: z.strictObject({ aOnly: z.number().int().min(0), bOnly: z.number().int().min(0) }).optional(),
  /** The Holm family (see ComparisonFamilySchema); absent in summaries written before families. */
  family: ComparisonFamilySchema.optional(),
  /**
   * wilcoxon and mcnemar: the mean matched difference a - b (of the per-scenario means; of the
   * collapse indicators of the matched pairs) with a seeded percentile-bootstrap 95% interval over
   * the matched units; the interval is null below two. Absent for mannwhitney and in older summaries.
   */
  difference: MeanWithCISchema.optional(),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

export const LengthConfoundRowSchema = z.strictObject({
  a: z.string(),
  b: z.string(),
  /** FS difference B - A without reply length as a covariate. */
  coefficient: z.number(),
  /** Its p; null when the regression could not be fitted (see `note`). */
  p: maybeNumber,
  /** FS difference B - A with standardized reply length as a covariate. */
  coefficientAdjusted: maybeNumber,
  pAdjusted: maybeNumber,
  /** Spearman rho(reply length, FS) within each condition; null when undefined. */
  rhoA: maybeNumber,
  rhoB: maybeNumber,
  note: z.string().optional(),
});
export type LengthConfoundRow = z.infer<typeof LengthConfoundRowSchema>;

/** Model calls and tokens of one model in one role, over every invocation on the directory. */
export const UsageEntrySchema = z.strictObject({
  model: z.string(),
  role: z.string(),
  /** Successful calls answered by a server. */
  calls: z.number().int().min(0),
  /** Calls answered from the response cache (no request sent). */
  cachedCalls: z.number().int().min(0),
  /** Calls that ended in an error after retries. */
  failedCalls: z.number().int().min(0),
  /** HTTP requests sent, retries included. */
  requests: z.number().int().min(0),
  /** Requests that retried an earlier failed one. */
  retries: z.number().int().min(0),
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
});
export type UsageEntry = z.infer<typeof UsageEntrySchema>;

export const RunSummarySchema = z.strictObject({
  format: z.literal(1),
  /** The run seed; every bootstrap seed derives from it. */
  seed: z.number().int().min(0),
  /**
   * The reference condition whose pairs form the `reference` Holm family: the config's
   * `report.reference` (or `aeb report --reference`), else `attuned` when the run has it; null
   * when neither. Absent in summaries written before families.
   */
  reference: z.string().nullable().optional(),
  repeats: z.number().int().min(1),
  /** ECS judges in order and independent HID judges, and which ECS judge gives the headline. */
  judges: z.strictObject({
    /** Every ECS judge, in order: the config's, then any found only on the dialogues. */
    ecs: z.array(z.string()),
    hid: z.array(z.string()),
    /**
     * The headline ECS judge: the first ECS judge that is a model (its judgements' `judge` id is
     * not a heuristic's); it gives each condition's `ecs` and the comparisons named `ecs`. Null
     * when no model judge ran. Absent in summaries written before the distinction (their `ecs`
     * is the first judge's, whatever it is: the reports then decide from the dialogues).
     */
    headlineEcs: z.string().nullable().optional(),
    /**
     * ECS judges that are heuristics, not models, by name, each with the id of the heuristic it is
     * (`offline-lexicon`: the affect-lexicon baseline, which reads the user's messages only):
     * reported in `ecsByJudge` and compared as `ecs:NAME`, never as the headline ECS. Absent in
     * summaries written before the distinction.
     */
    heuristicEcs: z.record(z.string(), z.string()).optional(),
  }),
  /** Distinct scenarios among the dialogues. */
  scenarios: z.number().int().min(0),
  dialogues: z.number().int().min(0),
  errors: z.number().int().min(0),
  /** The errors by cause, most frequent first (absent in summaries written before it). */
  errorCauses: z.array(ErrorCauseSchema).optional(),
  conditions: z.array(ConditionSummarySchema),
  comparisons: z.array(ComparisonSchema),
  /** FS difference per pair of conditions with and without reply length as a covariate. */
  lengthConfound: z.array(LengthConfoundRowSchema),
  /** Token usage per model role, over every invocation on the run directory (LLM runs only). */
  usage: z.array(UsageEntrySchema).optional(),
  /** Plain-language caveats (too little data for a statistic, excluded dialogues...). */
  notes: z.array(z.string()),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;
