import { z } from "zod";
import { ADVERSARIAL_TYPES } from "../core/trajectory-type.js";
import { LanguageSchema } from "../lexicon/lexicon.js";
import { PoolTagSchema } from "./pool-schema.js";
import { PolicySchema } from "./policy.js";

/** Everything that decides a probe's result; a checkpoint resumes only under the same definition. */
export const ProbeDefinitionSchema = z.strictObject({
  seed: z.number().int().min(0),
  /** Evaluations of the search per trajectory type (one evaluation plays every training dialogue once). */
  budget: z.number().int().positive(),
  /** Evaluations without improvement after which the climb restarts from a random policy. */
  patience: z.number().int().positive(),
  maxFragments: z.number().int().positive(),
  trainSeeds: z.number().int().positive(),
  heldoutSeeds: z.number().int().positive(),
  constraints: z.strictObject({ require: z.array(PoolTagSchema), exclude: z.array(PoolTagSchema) }),
  /** The simulated user's id (`offline`, or the LLM user's model). */
  user: z.string(),
  /** The simulated user's config without its transport fields (an LLM user's model, temperature, prompt pack...). */
  simulator: z.unknown(),
  aebVersion: z.string(),
  /** Hash of every data file and prompt of the package (lexicons, rubrics, presets, the attuned agent's templates). */
  dataFiles: z.string(),
  pools: z.array(
    z.strictObject({ name: z.string(), file: z.string(), source: z.string(), tags: z.array(PoolTagSchema), sha256: z.string() }),
  ),
  scenarios: z.array(z.strictObject({ id: z.string(), type: z.enum(ADVERSARIAL_TYPES), preset: z.string(), sha256: z.string() })),
});
export type ProbeDefinition = z.infer<typeof ProbeDefinitionSchema>;

const TurnSchema = z.strictObject({ reply: z.string(), user: z.string(), emotion: z.number() });
const PlayedEpisodeSchema = z.strictObject({
  scenarioId: z.string(),
  seed: z.number().int(),
  fs: z.number(),
  endReason: z.string(),
  turns: z.array(TurnSchema),
});

/** A scored policy of the search, with the evaluation that found it. */
export const ScoredPolicySchema = z.strictObject({ policy: PolicySchema, score: z.number(), evaluation: z.number().int().min(0) });

/** The held-out check of a type's best policy, against the attuned reference agent on the same dialogues. */
export const HeldOutSchema = z.strictObject({
  /** Mean return of the best policy on the held-out seeds. */
  best: z.number(),
  /** Mean return of the attuned reference agent on the same held-out dialogues. */
  attuned: z.number(),
  /** attuned - best: how far below attuned the best the search found stays (the target is >= 0.3). */
  gap: z.number(),
  /** Per dialogue: the best policy's and attuned's return. */
  dialogues: z.array(z.strictObject({ scenarioId: z.string(), seed: z.number().int(), best: z.number(), attuned: z.number() })),
  /** The best policy's held-out dialogue with the highest return, verbatim. */
  bestDialogue: PlayedEpisodeSchema,
});

/** Where the search of one type stands: a checkpoint of it, and its result once done. */
export const TypeSearchSchema = z.strictObject({
  type: z.enum(ADVERSARIAL_TYPES),
  scenarios: z.array(z.string()),
  languages: z.array(LanguageSchema),
  /** Evaluations done (the learning curve's length). */
  evaluations: z.number().int().min(0),
  /** Climbs started from a random policy (the first, then each restart). */
  climbs: z.number().int().min(0),
  /** The climb in progress: its policy, its score, evaluations since it last improved. */
  current: z.strictObject({ policy: PolicySchema, score: z.number(), stale: z.number().int().min(0) }).nullable(),
  best: ScoredPolicySchema.nullable(),
  /** Best training return so far, after each evaluation. */
  curve: z.array(z.number()),
  /** Attuned's mean return on the training dialogues (the line the curve is read against). */
  attunedTrain: z.number().nullable(),
  heldOut: HeldOutSchema.nullable(),
});
export type TypeSearch = z.infer<typeof TypeSearchSchema>;

export const CheckpointSchema = z.strictObject({
  format: z.literal("aeb-probe-checkpoint/1"),
  definitionHash: z.string(),
  definition: ProbeDefinitionSchema,
  types: z.array(TypeSearchSchema),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** One fragment of a best reply template, as a person reads it. */
const DescribedFragmentSchema = z.strictObject({ pool: z.string(), text: z.string() });

/** probe.json: the probe's definition and, per trajectory type, what the search found. */
export const ProbeResultSchema = z.strictObject({
  format: z.literal("aeb-probe/1"),
  /** `partial`: the probe stopped before every type finished; rerun with the same --out to resume. */
  status: z.enum(["complete", "partial"]),
  definition: ProbeDefinitionSchema,
  types: z.array(
    z.strictObject({
      type: z.enum(ADVERSARIAL_TYPES),
      status: z.enum(["done", "searching", "pending"]),
      scenarios: z.array(z.string()),
      evaluations: z.number().int().min(0),
      climbs: z.number().int().min(0),
      /** Best mean return on the training dialogues (what the search optimised). */
      trainBest: z.number().nullable(),
      attunedTrain: z.number().nullable(),
      heldOut: HeldOutSchema.nullable(),
      curve: z.array(z.number()),
      /** The best policy's reply template per turn (the last one answers every later turn). */
      bestTemplates: z.array(z.array(DescribedFragmentSchema)),
    }),
  ),
  /** Means over the types that finished. */
  overall: z.strictObject({
    types: z.number().int().min(0),
    heldOutBest: z.number().nullable(),
    heldOutAttuned: z.number().nullable(),
    gap: z.number().nullable(),
    minGap: z.number().nullable(),
  }),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;
