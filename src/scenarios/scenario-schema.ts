import { z } from "zod";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { LanguageSchema, MoveSchema } from "../lexicon/lexicon.js";

/** A delta, or a [low, high] range the offline user draws from with the dialogue's seed. */
export const DeltaSchema = z.union([
  z.number().int().min(-100).max(100),
  z
    .tuple([z.number().int().min(-100).max(100), z.number().int().min(-100).max(100)])
    .refine(([low, high]) => low <= high, { message: "range must be [low, high] with low <= high" }),
]);
export type Delta = z.infer<typeof DeltaSchema>;

/** One rubric item: when its condition on the reply's moves holds, it moves the emotion by `delta`. */
export const RubricItemSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/, "rubric ids are snake_case"),
    /** Relative to the manipulation turn: `before` it, from it on (`after`), or `any`. */
    phase: z.enum(["before", "after", "any"]).default("any"),
    any: z.array(MoveSchema).optional(),
    all: z.array(MoveSchema).optional(),
    none: z.array(MoveSchema).optional(),
    delta: DeltaSchema,
    description: z.string().min(1),
  })
  .refine((item) => (item.any?.length ?? 0) + (item.all?.length ?? 0) > 0, { message: "a rubric item needs `any` or `all` moves" });
export type RubricItem = z.infer<typeof RubricItemSchema>;

export const PersonaSchema = z.strictObject({
  /** Free text, as SAGE's profiles have it; required so a persona is never empty. */
  description: z.string().min(1, "persona description is empty"),
  name: z.string().optional(),
  age: z.number().int().min(5).max(110).optional(),
  gender: z.string().optional(),
  occupation: z.string().optional(),
  culture: z.string().optional(),
  temperament: z.string().optional(),
});
export type Persona = z.infer<typeof PersonaSchema>;

/** A scenario file (one YAML file per scenario in `scenarios/`). */
export const ScenarioSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "scenario ids are lowercase kebab-case"),
  type: TrajectoryTypeSchema,
  /** Which suite the scenario belongs to (`starter`, `full`, `classic`, `sage`...). */
  suite: z.string().default("full"),
  language: LanguageSchema.default("en"),
  /** Emotion preset (docs/fidelity.md): `aeb` for the adversarial suites. */
  preset: z.string().default("aeb"),
  title: z.string().min(1),
  persona: PersonaSchema,
  /** The background story the simulated user lives in. */
  background: z.string().min(1),
  /** The surface topic the user talks about. */
  topic: z.string().min(1),
  /** The need the user never states outright; hidden from the agent. */
  hiddenIntention: z.strictObject({
    text: z.string().min(1),
    /** Agent moves that address it (any one counts), for the offline user's HID verdicts. */
    moves: z.array(MoveSchema).min(1),
  }),
  /**
   * The user's first message; must not give away the hidden intention. Absent (SAGE/RLVER profiles
   * without `first_talk`): the simulated user writes it from the scenario at the start of each
   * dialogue (SimulatedUser.open), as RLVER's simulator does.
   */
  opening: z.string().min(1).optional(),
  /** Overrides the type's manipulation turn. */
  manipulationTurn: z.number().int().min(0).optional(),
  /** The adversarial trait: how the user behaves (script) and what moves them (rubric). */
  trait: z.strictObject({
    description: z.string().min(1),
    /** The user's lines after each agent reply: script[t] follows agent reply t. */
    script: z.array(z.string().min(1)).min(1),
    /** Replaces the type's default rubric when given. */
    rubric: z.array(RubricItemSchema).min(1).optional(),
  }),
  /** What the offline user reacts to besides the lexicon's moves. */
  cues: z.strictObject({
    /** Words of the situation: a reply that uses them is grounded in the user's story. */
    keywords: z.array(z.string().min(1)).min(1),
    /** The feelings the user shows (used by reports and the offline judge, never by agents). */
    feelings: z.array(z.string().min(1)).default([]),
  }),
});
export type ScenarioFile = z.input<typeof ScenarioSchema>;
export type Scenario = z.infer<typeof ScenarioSchema>;
