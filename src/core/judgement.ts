import { z } from "zod";

/**
 * The one shape of a judge's result on one dialogue. It is stored on the dialogue record
 * (`record.ecs[judgeName]`, `record.hid[judgeName]`) when the judge ran during `aeb run`, and in
 * judgements.jsonl when it ran later (`aeb judge`); readers merge the two, judge by judge.
 * Objects are loose so that a record written by a newer version (with more fields) still reads.
 */

/** One judged turn: the judge's prediction and confidence, and the emotion the simulator reported. */
export const EcsTurnEstimateSchema = z.looseObject({
  /** The agent reply after which the user's emotion was predicted (0-based). */
  index: z.number().int().min(0),
  /** The judge's predicted emotion, 0-100. */
  predicted: z.number().min(0).max(100),
  /** The judge's confidence, 0-100. */
  confidence: z.number().min(0).max(100),
  /** The emotion the simulated user reported after that reply, 0-100. */
  actual: z.number().min(0).max(100),
  /** The judge could not read this turn and it was scored p=50, c=0 (the AEB paper's imputation, `unreadableTurn: impute-50`). */
  imputed: z.literal(true).optional(),
});
export type EcsTurnEstimate = z.infer<typeof EcsTurnEstimateSchema>;

/** A turn the judge could not read (after its retries): excluded from the scores and counted. */
export const JudgeTurnErrorSchema = z.looseObject({
  index: z.number().int().min(0),
  error: z.string(),
});

/** What one ECS judge said about one dialogue. */
export const EcsJudgementSchema = z.looseObject({
  /** The judge's id (`offline-lexicon`, `llm`...). */
  judge: z.string(),
  /** The model behind the judge, where there is one. */
  model: z.string().optional(),
  /** ECS over every judged turn; null when no turn was judged. */
  score: z.number().nullable(),
  /** ECS over the turns before the manipulation turn; null when none was judged. */
  before: z.number().nullable(),
  /** ECS over the turns from the manipulation turn on; null when none was judged. */
  after: z.number().nullable(),
  /** before - after; null when either is. */
  drop: z.number().nullable(),
  /** Spearman rho of predicted and actual emotion over the judged turns (three or more), else null. */
  spearman: z.number().nullable().optional(),
  /** How many turns were judged. */
  turns: z.number().int().min(0).optional(),
  estimates: z.array(EcsTurnEstimateSchema).optional(),
  /** Turns the judge could not read; a rerun (`aeb run` resuming, `aeb judge`) tries them again. */
  errors: z.array(JudgeTurnErrorSchema).optional(),
  /** What was done with unreadable turns: left out of the scores, or scored p=50, c=0 (the AEB paper). */
  unreadableTurn: z.enum(["exclude", "impute-50"]).optional(),
  /** How many of the `errors` turns were imputed (they are among `estimates`, marked `imputed`). */
  imputed: z.number().int().min(0).optional(),
});
export type EcsJudgement = z.infer<typeof EcsJudgementSchema>;

export const HidVerdictSchema = z.enum(["yes", "partial", "no"]);
export type HidVerdict = z.infer<typeof HidVerdictSchema>;

/** What one independent HID judge said about one dialogue. */
export const HidJudgementSchema = z.looseObject({
  judge: z.string(),
  model: z.string().optional(),
  verdict: HidVerdictSchema.optional(),
  /** 1 / 0.5 / 0 for yes / partial / no, as the simulator's HID. */
  value: z.number().min(0).max(1).optional(),
  /** First agent turn (0-based) that addressed the hidden intention, or null. */
  turn: z.number().int().min(0).nullable().optional(),
  /** The quoted evidence; it must occur verbatim in an agent reply. */
  evidence: z.string().optional(),
  /** Why the verdict is missing (unreadable output, evidence not found, failed call); a rerun tries again. */
  error: z.string().optional(),
});
export type HidJudgement = z.infer<typeof HidJudgementSchema>;

/** Judgements by judge name, as on a record or a judgements.jsonl line. */
export const EcsJudgementsSchema = z.record(z.string(), EcsJudgementSchema);
export const HidJudgementsSchema = z.record(z.string(), HidJudgementSchema);

/** Whether a judgement has parts that failed and should be tried again on a rerun. */
export function ecsJudgementFailed(judgement: EcsJudgement | undefined): boolean {
  return judgement !== undefined && (judgement.errors?.length ?? 0) > 0;
}

export function hidJudgementFailed(judgement: HidJudgement | undefined): boolean {
  return judgement !== undefined && judgement.error !== undefined;
}
