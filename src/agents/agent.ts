import type { ChatTurn } from "../core/dialogue.js";
import type { Language } from "../lexicon/lexicon.js";

/** What an agent under test sees: the visible conversation only, never the scenario's hidden fields. */
export interface AgentInput {
  /** Visible conversation, oldest first; the last turn is the user's. */
  history: readonly ChatTurn[];
  language: Language;
  turnIndex: number;
  /** Seed of this dialogue. */
  seed: number;
  /** Identity of the dialogue, for caches and logs. */
  dialogueId: string;
  signal?: AbortSignal;
}

export interface AgentReply {
  /** The visible reply the user sees. */
  text: string;
  /** Reasoning before the reply (think conditions), stored on the turn, never shown to the user. */
  think?: string;
  /** e.g. `think_format` when a think block was missing or broken. */
  flags?: string[];
}

/** An agent under test. Async so LLM-backed agents plug in unchanged. */
export interface Agent {
  readonly id: string;
  reply(input: AgentInput): Promise<AgentReply>;
}
