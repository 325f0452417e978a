import { z } from "zod";
import { AdjustmentSchema, EndReasonSchema, HidVerdictSchema } from "../core/dialogue.js";
import { PresetName } from "../core/preset.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { ErrorBodySchema } from "../http/http-error.js";
import { RewardModeSchema } from "../reward/reward-mode.js";

export { RewardModeSchema, type RewardMode } from "../reward/reward-mode.js";

/**
 * The HTTP API of the environment server, as zod schemas: requests are validated with them (no
 * type coercion, unknown fields rejected), and the OpenAPI document is generated from them.
 */

/** Longest agent reply accepted, in characters (the body limit applies too). */
export const MAX_REPLY_CHARS = 20_000;
/** Longest state token accepted, in characters. */
export const MAX_TOKEN_CHARS = 65_536;
/** Most messages a history may hold (an opening plus 100 turns). */
export const MAX_MESSAGES = 201;
/** Most tags a reset may carry, and the longest tag name or value. */
export const MAX_TAGS = 16;
export const MAX_TAG_CHARS = 100;

/** A preset by name, or `scenario` for the preset the scenario file names (what `aeb run` uses). */
export const PresetChoiceSchema = z.enum([...PresetName.options, "scenario"]);
export type PresetChoice = z.infer<typeof PresetChoiceSchema>;

export const MessageSchema = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.string().max(MAX_REPLY_CHARS * 2),
});
export type Message = z.infer<typeof MessageSchema>;

export const ResetRequestSchema = z.strictObject({
  /** Play this scenario. Without it, one is sampled (with `seed`) among those matching `type` and `suite`. */
  scenarioId: z.string().min(1).max(200).optional(),
  /** Sample among the scenarios of this trajectory type. */
  type: TrajectoryTypeSchema.optional(),
  /** Sample among the scenarios of this suite. */
  suite: z.string().min(1).max(100).optional(),
  /**
   * Run seed, as `aeb run --seed`: the episode seed is deriveSeed(seed, scenarioId, repeat), so the
   * same seed, scenario and replies give the same emotions as `aeb run`. Random when absent (and returned).
   */
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Repeat index, as `aeb run --repeats`; default 0. */
  repeat: z.number().int().min(0).max(1_000_000).optional(),
  /** Emotion rules (start, clamps, thresholds, turn limit); default the server's (`rlver` unless configured). */
  preset: PresetChoiceSchema.optional(),
  /** Reward mode (`reward/reward-mode.ts`); default the server's (`final` unless configured). */
  rewardMode: RewardModeSchema.optional(),
  /** Identity of the episode for the simulated user's caches and logs; default derived from scenario, seed and repeat. */
  episodeId: z.string().min(1).max(200).optional(),
  /** The trainer's step (global step) this episode belongs to; written on the episode's record by `aeb serve --record`. */
  trainerStep: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /**
   * Free labels for the episode's record (`aeb serve --record`), e.g. `{"split": "train", "run": "grpo-7b"}`;
   * `condition` names the record's condition (default the server's `--record-condition`).
   */
  tags: z
    .record(z.string().min(1).max(MAX_TAG_CHARS), z.string().min(1).max(MAX_TAG_CHARS))
    .refine((tags) => Object.keys(tags).length <= MAX_TAGS, { message: `at most ${MAX_TAGS} tags` })
    .optional(),
});
export type ResetRequest = z.infer<typeof ResetRequestSchema>;

export const ScenarioSummarySchema = z.strictObject({
  id: z.string(),
  type: TrajectoryTypeSchema,
  suite: z.string(),
  language: z.string(),
  title: z.string(),
  /** The user's first message (visible to the agent; the hidden intention never is); null: the simulated user writes it at each reset. */
  opening: z.string().nullable(),
  /** The preset the scenario file names (used when a reset asks for preset `scenario`). */
  preset: z.string(),
});
export type ScenarioSummary = z.infer<typeof ScenarioSummarySchema>;

export const ScenarioListSchema = z.strictObject({ scenarios: z.array(ScenarioSummarySchema) });

const EpisodeFields = {
  episodeId: z.string(),
  scenario: z.strictObject({ id: z.string(), type: TrajectoryTypeSchema, suite: z.string(), language: z.string() }),
  preset: z.string(),
  rewardMode: RewardModeSchema,
  /** The run seed (given or drawn); pass it again to replay the episode. */
  seed: z.number().int(),
  repeat: z.number().int(),
  /** The seed the simulated user draws from: deriveSeed(seed, scenarioId, repeat). */
  episodeSeed: z.number().int(),
  /** Turn limit of the preset. */
  maxTurns: z.number().int(),
};

export const ResetResponseSchema = z.strictObject({
  ...EpisodeFields,
  /** Signed state; send it back with the next step. */
  token: z.string(),
  /** The user's opening message. */
  message: z.string(),
  /** The conversation so far (the opening): send it back with the next step. */
  messages: z.array(MessageSchema),
  emotion: z.number().int(),
  turnIndex: z.number().int(),
  done: z.boolean(),
});
export type ResetResponse = z.infer<typeof ResetResponseSchema>;

export const StepRequestSchema = z.strictObject({
  /** The token of the previous reset or step. */
  token: z.string().min(1).max(MAX_TOKEN_CHARS),
  /** The conversation so far, oldest first: the opening, then alternating assistant and user turns, without the new reply. */
  messages: z.array(MessageSchema).min(1).max(MAX_MESSAGES),
  /** The agent's visible reply (strip any think block first). */
  reply: z.string().max(MAX_REPLY_CHARS),
});
export type StepRequest = z.infer<typeof StepRequestSchema>;

export const StepResultFields = {
  /** The user's reply; empty when the preset does not appraise this reply (sage's 10th, which ends the episode). */
  message: z.string(),
  /** Emotion after this turn, 0-100. */
  emotion: z.number().int(),
  /** Actual change of emotion this turn (after adjustments and clamps); 0 for a reply that is not appraised. */
  change: z.number().int(),
  /** The simulated user's own proposed change, before the adjustments; 0 for a reply that is not appraised. */
  simulatorChange: z.number(),
  /** Reward of this step in the episode's reward mode. */
  reward: z.number(),
  done: z.boolean(),
  endReason: EndReasonSchema.nullable(),
  /** Deterministic adjustments (formulaic, repetition, injection) with their values and evidence. */
  adjustments: z.array(AdjustmentSchema),
  /** Flags raised this turn (`injection`, `formulaic`, `repetition`...). */
  flags: z.array(z.string()),
  /** The simulator's verdict on whether the reply addressed the hidden intention. */
  hid: HidVerdictSchema.nullable(),
  /** Turns completed so far. */
  turnIndex: z.number().int(),
};

export const StepResponseSchema = z.strictObject({
  ...StepResultFields,
  /** The next state token. */
  token: z.string(),
});
export type StepResponse = z.infer<typeof StepResponseSchema>;

/** Every error response's body, the one of both HTTP apps (src/http/http-error.ts). */
export { ErrorBodySchema };

export const BatchStepRequestSchema = z.strictObject({
  /** Steps of independent episodes, answered concurrently; results come back in the same order. */
  steps: z.array(StepRequestSchema).min(1),
});
/** What the batch route validates up front: each step is validated on its own, so one bad step fails alone. */
export const BatchEnvelopeSchema = z.strictObject({ steps: z.array(z.unknown()).min(1) });

export const BatchStepResponseSchema = z.strictObject({
  results: z.array(
    z.union([
      z.strictObject({ ok: z.literal(true), result: StepResponseSchema }),
      z.strictObject({ ok: z.literal(false), status: z.number().int(), error: ErrorBodySchema }),
    ]),
  ),
});

export const SessionParamsSchema = z.strictObject({ sessionId: z.string().min(1).max(100) });

export const SessionCreatedSchema = z.strictObject({
  sessionId: z.string(),
  /** The session is dropped after this many seconds without a request. */
  idleTimeoutSeconds: z.number(),
  ...EpisodeFields,
  message: z.string(),
  messages: z.array(MessageSchema),
  emotion: z.number().int(),
  turnIndex: z.number().int(),
  done: z.boolean(),
});

export const SessionStepRequestSchema = z.strictObject({
  reply: z.string().max(MAX_REPLY_CHARS),
  /**
   * The turn this reply answers: the session's `turnIndex` as last returned (0 after create). A retry
   * of the last step (same turn, same reply) gets the recorded answer; an older turn is refused (409).
   */
  turnIndex: z.number().int().min(0).max(MAX_MESSAGES),
});

export const SessionStepResponseSchema = z.strictObject({ sessionId: z.string(), ...StepResultFields });

export const SessionStateSchema = z.strictObject({
  sessionId: z.string(),
  ...EpisodeFields,
  messages: z.array(MessageSchema),
  emotion: z.number().int(),
  turnIndex: z.number().int(),
  done: z.boolean(),
  endReason: EndReasonSchema.nullable(),
  /** Sum of the step rewards so far. */
  totalReward: z.number(),
});

export const HealthSchema = z.strictObject({
  /** `recorder_failing`: with --record, the last episode could not be written (503, as while draining). */
  status: z.enum(["ok", "shutting_down", "recorder_failing"]),
  simulator: z.string(),
  scenarios: z.number().int(),
  uptimeSeconds: z.number(),
  /** With --record: whether finished episodes can be written, and the last failure while they cannot. */
  recorder: z.strictObject({ state: z.enum(["ok", "failing"]), error: z.string().optional(), since: z.string().optional() }).optional(),
});
