import { z } from "zod";
import { dataPath, loadDataFile } from "./data-files.js";
import { ConfigError } from "./errors.js";

export const PresetSchema = z.strictObject({
  description: z.string(),
  /** Emotion before the first agent reply. */
  start: z.number().int().min(0).max(100),
  /** Per-turn bound on |change|; null means no clamp (RLVER). */
  clamp: z.number().int().positive().nullable(),
  /** Success when emotion >= this value. */
  success: z.number().int().min(0).max(100),
  /** Collapse when `emotion op value`. */
  failure: z.strictObject({ op: z.enum(["<", "<="]), value: z.number().int().min(0).max(100) }),
  /** Turn limit: a turn is one agent reply followed by one user reply. */
  maxTurns: z.number().int().positive(),
});
export type PresetRules = z.infer<typeof PresetSchema>;
export interface Preset extends PresetRules {
  name: string;
}

export const PresetName = z.enum(["aeb", "sage", "rlver"]);
export type PresetName = z.infer<typeof PresetName>;

const PresetFileSchema = z.record(z.string(), PresetSchema);

let presets: Record<string, Preset> | undefined;

export function loadPresets(): Record<string, Preset> {
  if (presets === undefined) {
    const file = loadDataFile(dataPath("presets.yaml"), PresetFileSchema);
    presets = Object.fromEntries(Object.entries(file).map(([name, rules]) => [name, { name, ...rules }]));
  }
  return presets;
}

export function getPreset(name: string): Preset {
  const preset = loadPresets()[name];
  if (preset === undefined) {
    throw new ConfigError(`unknown preset "${name}" (known: ${Object.keys(loadPresets()).join(", ")})`);
  }
  return preset;
}
