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
  /** Did the reply address the hidden intention? Absent when the simulator gives no verdict (a replayed SAGE file, a prompt pack without a HID rule). */
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

/** What the simulated user sees when it writes the first message of a dialogue whose scenario has none. */
export interface OpeningInput {
  scenario: Scenario;
  preset: Preset;
  /** Emotion at the start (the preset's). */
  emotion: number;
  /** Seed of this dialogue; the same for every condition that meets this scenario and repeat. */
  seed: number;
  dialogueId: string;
  signal?: AbortSignal;
}

/**
 * A simulated user: SAGE's two stages per turn, appraisal then reply. All async so LLM users plug
 * in. `open` writes the first message from the scenario (persona, story, hidden intention) when
 * the scenario has no opening line, as RLVER's and SAGE's simulators write `first_talk`; a user
 * without it can only play scenarios that have one.
 */
export interface SimulatedUser {
  readonly id: string;
  /**
   * True for a user whose calls are pure computation (the offline user): the environment server may
   * play its batches on threads. A user that waits on I/O (a model server) leaves it unset.
   */
  readonly cpuBound?: boolean;
  appraise(input: AppraisalInput): Promise<Appraisal>;
  reply(input: ReplyInput): Promise<UserReply>;
  open?(input: OpeningInput): Promise<string>;
}

/** Raised by a simulated user that cannot produce a usable turn; the dialogue ends as `error`. */
export class SimulatedUserError extends Error {
  override readonly name = "SimulatedUserError";
}
