import type { ChatTurn, HidVerdict } from "../core/dialogue.js";
import type { Preset } from "../core/preset.js";
import type { Scenario } from "../scenarios/scenario-schema.js";

/** JSON state a simulated user carries between turns (kept in the episode state, so a stateless server can sign it). */
export type UserMemory = Record<string, unknown>;

/** What the simulated user sees when it appraises an agent reply (stage 1 of SAGE's turn). */
export interface AppraisalInput {
  scenario: Scenario;
  preset: Preset;
  /** The visible conversation before the reply, oldest first; the opening is the first user turn. */
  history: readonly ChatTurn[];
  /** The agent's visible reply under appraisal (never its think text). */
  agentReply: string;
  turnIndex: number;
  manipulationTurn: number;
  /** Emotion before this turn. */
  emotion: number;
  memory: UserMemory;
  /** Seed of this dialogue; users derive per-turn randomness from it. */
  seed: number;
  /** Identity of the dialogue, for caches and logs. */
  dialogueId: string;
  signal?: AbortSignal;
}

export interface Appraisal {
  /** The simulator's own signed change, before the deterministic adjustments. */
  simulatorDelta: number;
  /** Did the reply address the hidden intention? Absent when the user does not judge it (a prompt pack without a HID rule). */
  hid?: HidVerdict;
  /** Reasoning and rubric items: stored on the turn, never shown to the agent. */
  details: Record<string, unknown>;
  /** A fused simulator may return its reply with the appraisal (one call instead of two). */
  fusedReply?: UserReply;
  flags?: string[];
  memory: UserMemory;
}

/** Stage 2: the in-persona reply, written after the emotion has moved. */
export interface ReplyInput extends AppraisalInput {
  appraisal: Appraisal;
  /** Emotion after this turn (simulator change + adjustments, clamped). */
  emotionAfter: number;
}

export interface UserReply {
  text: string;
  /** The user leaves of its own accord (a structured decision, not a keyword). */
  left: boolean;
  flags?: string[];
  memory?: UserMemory;
}

/** A simulated user: SAGE's two stages per turn, appraisal then reply. Both async so LLM users plug in. */
export interface SimulatedUser {
  readonly id: string;
  appraise(input: AppraisalInput): Promise<Appraisal>;
  reply(input: ReplyInput): Promise<UserReply>;
}

/** Raised by a simulated user that cannot produce a usable turn; the dialogue ends as `error`. */
export class SimulatedUserError extends Error {
  override readonly name = "SimulatedUserError";
}
