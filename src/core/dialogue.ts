import { z } from "zod";
import { EcsJudgementsSchema, HidJudgementsSchema, HidVerdictSchema } from "./judgement.js";
import { TrajectoryTypeSchema } from "./trajectory-type.js";

export { HidVerdictSchema, type HidVerdict } from "./judgement.js";

/** One deterministic adjustment or rubric item that moved the emotion, kept so a reader sees why. */
export const AdjustmentSchema = z.strictObject({
  /** What fired: a detector id (`formulaic`, `repetition`, `injection`) or a rubric item id. */
  kind: z.string(),
  /** Its contribution to the change before clamping. */
  value: z.number(),
  /** Short evidence (the phrase that matched), for readers. */
  evidence: z.string().optional(),
});
export type Adjustment = z.infer<typeof AdjustmentSchema>;

export const EndReasonSchema = z.enum(["success", "collapse", "user_left", "max_turns", "error"]);
export type EndReason = z.infer<typeof EndReasonSchema>;

/** The user's side of an appraised turn: the simulated user appraised the reply and answered it. */
export const AppraisedUserTurnSchema = z.strictObject({
  /** Absent (or true) on an appraised turn; see UnappraisedUserTurnSchema. */
  appraised: z.literal(true).optional(),
  text: z.string(),
  /** Emotion after this turn, integer in [0, 100]. */
  emotion: z.number().int().min(0).max(100),
  /** Actual change of emotion this turn (after adjustments and clamps). */
  delta: z.number().int(),
  /** The simulated user's own proposed change, before adjustments. */
  simulatorDelta: z.number(),
  /** Deterministic adjustments (docs/offline-user.md, "Deterministic adjustments") applied on top of `simulatorDelta`. */
  adjustments: z.array(AdjustmentSchema),
  /** Flags raised this turn: `formulaic`, `repetition`, `injection`, `out_of_character`, `think_format`, `goodbye_words`... */
  flags: z.array(z.string()),
  /** The simulator's verdict on whether the reply addressed the hidden intention. */
  hid: HidVerdictSchema.optional(),
  /** The simulator's rubric items and reasoning: hidden state, never shown to the agent. */
  appraisal: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The user's side of a reply that was recorded but never appraised: the reply at the turn limit of
 * a preset with `appraiseReplyAtLimit: false` (SAGE's loop lets the agent reply a 10th time and
 * stops before appraising it). Nothing is invented for it: no user text, no change, no verdict.
 */
export const UnappraisedUserTurnSchema = z.strictObject({
  appraised: z.literal(false),
  /** The emotion, unchanged by this reply: the emotion after the previous turn. */
  emotion: z.number().int().min(0).max(100),
  /** None: no detector's adjustment applies to a reply that moves nothing. */
  adjustments: z.array(AdjustmentSchema).max(0, "a reply that was not appraised has no adjustments"),
  /** The agent side's own flags only (`think_format`...); nothing judged this reply. */
  flags: z.array(z.string()),
  // Declared absent so that reading them off either kind of turn type-checks (as undefined here).
  text: z.never().optional(),
  delta: z.never().optional(),
  simulatorDelta: z.never().optional(),
  hid: z.never().optional(),
  appraisal: z.never().optional(),
});

/** The user's side of a turn: appraised (the usual case) or recorded without appraisal. */
export const UserTurnRecordSchema = z.union([AppraisedUserTurnSchema, UnappraisedUserTurnSchema]);
export type AppraisedUserTurn = z.infer<typeof AppraisedUserTurnSchema>;
export type UnappraisedUserTurn = z.infer<typeof UnappraisedUserTurnSchema>;
export type UserTurnRecord = z.infer<typeof UserTurnRecordSchema>;

export const TurnRecordSchema = z.strictObject({
  index: z.number().int().min(0),
  agent: z.strictObject({
    text: z.string(),
    think: z.string().optional(),
    chars: z.number().int().min(0),
    /** Tokens of the visible reply, when the run config names a tokenizer. */
    tokens: z.number().int().min(0).optional(),
  }),
  user: UserTurnRecordSchema,
});
export type TurnRecord = z.infer<typeof TurnRecordSchema>;

/** Was this turn's reply appraised by the simulated user (false only at a SAGE-style turn limit)? */
export function isAppraised(turn: TurnRecord): turn is TurnRecord & { user: AppraisedUserTurn } {
  return turn.user.appraised !== false;
}

/** Where in the dialogue a failure happened. */
export const DialogueErrorStageSchema = z.enum(["opening", "agent", "appraisal", "user_reply", "judge", "unknown"]);
export type DialogueErrorStage = z.infer<typeof DialogueErrorStageSchema>;

/**
 * Why a dialogue ended in error, as a run summarises it (by kind and stage). `kind` is a model
 * call's failure kind (`http`, `timeout`, `connection`, `empty-completion`, `incomplete-stream`,
 * `invalid-response`, `outage`, `config`...), `unusable-output` for a simulated user whose answers
 * stayed unparseable after its retries, `agent-error` for an agent given in code that threw,
 * `stopped` for a person who left `aeb chat`, or `unexpected`.
 */
export const DialogueErrorSchema = z.strictObject({
  kind: z.string().min(1),
  stage: DialogueErrorStageSchema,
  /** The failure in words, naming the endpoint and model where one failed (never a key). */
  message: z.string(),
  /** Whether trying the same call again can succeed (a timeout, a 503) or not (a 401, a missing model). */
  retryable: z.boolean(),
});
export type DialogueError = z.infer<typeof DialogueErrorSchema>;

/** The error as one line: "kind at stage: message". */
export function describeDialogueError(error: DialogueError): string {
  return `${error.kind} at ${error.stage.replace("_", " ")}: ${error.message}`;
}

/** Records written before the error was structured hold "Name: message"; read them as kind `unexpected`, stage `unknown`. */
export function legacyDialogueError(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const match = /^([A-Za-z]+Error): ([\s\S]*)$/.exec(value);
  return { kind: "unexpected", stage: "unknown", message: match?.[2] ?? value, retryable: false };
}

/** One line of `dialogues.jsonl` (docs/output-format.md). */
export const DialogueRecordSchema = z.looseObject({
  id: z.string(),
  condition: z.string(),
  scenarioId: z.string(),
  type: TrajectoryTypeSchema,
  repeat: z.number().int().min(0),
  seed: z.number().int(),
  status: z.enum(["done", "error"]),
  endReason: EndReasonSchema,
  /** Why the dialogue errored, when `status` is `error` (a "Name: message" string in records before 0.2, read as kind `unexpected`). */
  error: z.preprocess(legacyDialogueError, DialogueErrorSchema).optional(),
  preset: z.string(),
  manipulationTurn: z.number().int().min(0),
  opening: z.strictObject({
    text: z.string(),
    emotion: z.number().int().min(0).max(100),
    /** `simulated_user`: the scenario had no opening line and the simulated user wrote this one; absent: the scenario's own line. */
    source: z.literal("simulated_user").optional(),
  }),
  turns: z.array(TurnRecordSchema),
  final: z.strictObject({ emotion: z.number().int().min(0).max(100), fs: z.number().min(0).max(1) }),
  /** Independent HID judges' verdicts, keyed by judge name (core/judgement.ts). */
  hid: HidJudgementsSchema.optional(),
  /** ECS judges' results, keyed by judge name (core/judgement.ts). */
  ecs: EcsJudgementsSchema.optional(),
});
export type DialogueRecord = z.infer<typeof DialogueRecordSchema>;

export interface ChatTurn {
  role: "user" | "assistant";
  content: string;
}

/** A dialogue's id in the record: `condition/scenario/repeat`, unique within a run directory. */
export function dialogueId(condition: string, scenarioId: string, repeat: number): string {
  return `${condition}/${scenarioId}/${repeat}`;
}
