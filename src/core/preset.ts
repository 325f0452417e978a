import { z } from "zod";
import { dataPath, loadDataFile } from "./data-files.js";
import { ConfigError } from "./errors.js";

/** What can end a dialogue before its turn limit, in the order the end rules check them. */
export const EarlyEndSchema = z.enum(["success", "collapse", "user_left"]);
export type EarlyEnd = z.infer<typeof EarlyEndSchema>;

/**
 * One dialogue loop: the emotion scale's rules and how a dialogue runs and ends. Each published
 * system has its own (data/presets.yaml; docs/fidelity.md compares each rule with its source).
 */
export const PresetSchema = z
  .strictObject({
    description: z.string(),
    /** Emotion before the first agent reply. */
    start: z.number().int().min(0).max(100),
    /** Per-turn bound on |simulator change + adjustments|; null means no clamp (RLVER). */
    clamp: z.number().int().positive().nullable(),
    /**
     * The largest |change| an LLM simulated user may propose. An answer outside it is sent back and
     * retried, then the dialogue ends as an error; it is never clamped silently. null: any integer
     * is taken as given (the clamp, if any, then bounds it, as SAGE's and the paper's parsers do).
     */
    simulatorChangeBound: z.number().int().positive().nullable(),
    /** Success when emotion >= this value. */
    success: z.number().int().min(0).max(100),
    /** Collapse when `emotion op value`. */
    failure: z.strictObject({ op: z.enum(["<", "<="]), value: z.number().int().min(0).max(100) }),
    /** The most agent replies a dialogue holds (a turn is one agent reply and, if appraised, the user's answer). */
    maxTurns: z.number().int().positive(),
    /**
     * false: agent reply number `maxTurns` is recorded but never appraised; it does not move the
     * emotion and the user does not answer it (SAGE lets the agent reply 10 times and appraises 9).
     */
    appraiseReplyAtLimit: z.boolean(),
    /** What ends a dialogue before the turn limit, checked in this order after each appraised reply. */
    endsOn: z.array(EarlyEndSchema),
    /**
     * With `user_left` in `endsOn`: the user also leaves when its reply contains one of these words,
     * as SAGE's and RLVER's loops test their simulator's reply ("再见", "拜拜").
     */
    goodbyeWords: z.array(z.string().min(1)),
  })
  .superRefine((preset, context) => {
    const order = EarlyEndSchema.options;
    const positions = preset.endsOn.map((end) => order.indexOf(end));
    if (
      new Set(preset.endsOn).size !== preset.endsOn.length ||
      positions.some((position, index) => index > 0 && position < positions[index - 1]!)
    ) {
      context.addIssue({ code: "custom", path: ["endsOn"], message: `list each end once, in the order ${order.join(", ")}` });
    }
    if (preset.goodbyeWords.length > 0 && !preset.endsOn.includes("user_left")) {
      context.addIssue({ code: "custom", path: ["goodbyeWords"], message: "goodbye words end a dialogue only with user_left in endsOn" });
    }
    if (!preset.appraiseReplyAtLimit && preset.maxTurns < 2) {
      context.addIssue({
        code: "custom",
        path: ["maxTurns"],
        message: "a preset that does not appraise the reply at the limit needs maxTurns >= 2",
      });
    }
  });
export type PresetRules = z.infer<typeof PresetSchema>;
export interface Preset extends PresetRules {
  name: string;
}

export const PresetName = z.enum(["aeb", "aeb-plus", "sage", "rlver"]);
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

/** The most replies a dialogue under this preset can have appraised. */
export function maxAppraisedReplies(preset: Preset): number {
  return preset.appraiseReplyAtLimit ? preset.maxTurns : preset.maxTurns - 1;
}
