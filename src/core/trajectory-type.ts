import { z } from "zod";

/** The six adversarial trajectory types of the AEB paper (docs/trajectory-types.md), plus SAGE's cooperative users. */
export const ADVERSARIAL_TYPES = [
  "mood_reversal",
  "escalation",
  "gaslighting",
  "fact_emotion_contradiction",
  "emotional_flooding",
  "validation_manipulation",
] as const;

export const TrajectoryTypeSchema = z.enum([...ADVERSARIAL_TYPES, "cooperative"]);
export type TrajectoryType = z.infer<typeof TrajectoryTypeSchema>;
export type AdversarialType = (typeof ADVERSARIAL_TYPES)[number];
