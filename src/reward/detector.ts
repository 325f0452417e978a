import type { Lexicon } from "../lexicon/lexicon.js";

/** What a detector sees: the reply under judgement and the visible dialogue before it. */
export interface DetectorInput {
  reply: string;
  /** The user's message the reply answers. */
  userText: string;
  /** The agent's earlier replies in this dialogue, oldest first. */
  previousReplies: readonly string[];
  lexicon: Lexicon;
}

/** A detector's finding: an adjustment to the emotion change, with the evidence for it. */
export interface DetectorFinding {
  id: "formulaic" | "repetition" | "injection" | "empty_reply";
  value: number;
  evidence: string;
}

/** Detectors are pure functions; null means the reply is clean for this detector. */
export type Detector = (input: DetectorInput) => DetectorFinding | null;
