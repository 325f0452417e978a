import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { TrajectoryType } from "../core/trajectory-type.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { LexicalMoveSchema, type LexicalMove } from "../lexicon/lexicon.js";
import { RubricItemSchema, type RubricItem, type Scenario } from "./scenario-schema.js";

/** Moves that do not fit the type: in any phase, before the manipulation turn, from it on. */
const OffKeySchema = z.strictObject({
  any: z.array(LexicalMoveSchema).default([]),
  before: z.array(LexicalMoveSchema).default([]),
  after: z.array(LexicalMoveSchema).default([]),
});
export type OffKey = z.infer<typeof OffKeySchema>;

const TypeDefaultsSchema = z.strictObject({
  manipulationTurn: z.number().int().min(0),
  drift: z.number().int(),
  summary: z.string(),
  rubric: z.array(RubricItemSchema).min(1),
  /** Moves that cost the offline user's emotion because they do not fit this type (data/offline-user/fit-rules.yaml). */
  offKey: OffKeySchema.default({ any: [], before: [], after: [] }),
});
export type TypeDefaults = z.infer<typeof TypeDefaultsSchema>;

const TypeDefaultsFileSchema = z.record(TrajectoryTypeSchema, TypeDefaultsSchema);

export function loadTypeDefaults(): Record<TrajectoryType, TypeDefaults> {
  return loadDataFile(dataPath("trajectory-types.yaml"), TypeDefaultsFileSchema) as Record<TrajectoryType, TypeDefaults>;
}

/** The scenario's manipulation turn (its own, else its type's). */
export function manipulationTurnOf(scenario: Scenario): number {
  return scenario.manipulationTurn ?? loadTypeDefaults()[scenario.type].manipulationTurn;
}

/** The rubric the offline user applies: the scenario's own, else its type's. */
export function rubricOf(scenario: Scenario): RubricItem[] {
  return scenario.trait.rubric ?? loadTypeDefaults()[scenario.type].rubric;
}

export function driftOf(scenario: Scenario): number {
  return loadTypeDefaults()[scenario.type].drift;
}

/** The moves that do not fit the scenario's type in this phase (the offline user charges each). */
export function offKeyMovesOf(scenario: Scenario, phase: "before" | "after"): LexicalMove[] {
  const offKey = loadTypeDefaults()[scenario.type].offKey;
  return [...new Set([...offKey.any, ...offKey[phase]])];
}
