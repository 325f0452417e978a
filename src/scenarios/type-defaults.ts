import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { TrajectoryType } from "../core/trajectory-type.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { RubricItemSchema, type RubricItem, type Scenario } from "./scenario-schema.js";

const TypeDefaultsSchema = z.strictObject({
  manipulationTurn: z.number().int().min(0),
  drift: z.number().int(),
  summary: z.string(),
  rubric: z.array(RubricItemSchema).min(1),
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
