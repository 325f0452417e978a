import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, formatIssues } from "../core/errors.js";
import { PresetName } from "../core/preset.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { OFFLINE_AGENT_IDS, REFERENCE_AGENT_IDS } from "../agents/reference-agents.js";
import { ModelEndpointConfig } from "../llm/endpoint-config.js";
import { PromptPackRefSchema } from "../prompts/prompt-pack.js";

/** An offline agent: a reference baseline, or a gaming agent that probes the offline user (docs/offline-user.md). */
export const ReferenceAgentConfigSchema = z.strictObject({
  kind: z.literal("reference"),
  id: z.enum(OFFLINE_AGENT_IDS),
});

/** A model under test behind an OpenAI-compatible endpoint (vLLM, SGLang, Ollama, OpenAI...). */
export const LlmAgentConfigSchema = z.strictObject({
  kind: z.literal("llm"),
  endpoint: ModelEndpointConfig,
  /** Think-then-reply (`<think>...</think>` or the server's reasoning field) or a direct reply. */
  think: z.boolean().default(false),
  /** Replaces the built-in system prompt. */
  systemPrompt: z.string().min(1).optional(),
  /**
   * Replaces the built-in system prompt with a file's text (e.g. the prompt RLVER's checkpoints were
   * trained with; docs/models.md says where it is), read before any model call. A path relative to
   * the working directory.
   */
  systemPromptFile: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
}).refine((agent) => agent.systemPrompt === undefined || agent.systemPromptFile === undefined, { message: "give systemPrompt or systemPromptFile, not both", path: ["systemPromptFile"] });

/**
 * An agent given in code: `runBenchmark({ config, agents: { NAME: agent } })` supplies it under the
 * condition's name (a function of the visible conversation, or an object with `reply`). `id` names
 * it and its version in run.json: change it when the agent's code changes, so a rerun into the
 * same directory is refused rather than mixing two agents.
 */
export const LibraryAgentConfigSchema = z.strictObject({
  kind: z.literal("library"),
  id: z.string().min(1),
});

export const AgentConfigSchema = z.discriminatedUnion("kind", [ReferenceAgentConfigSchema, LlmAgentConfigSchema, LibraryAgentConfigSchema]);
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export const ConditionConfigSchema = z.strictObject({
  /** Name of the condition as it appears in results (e.g. `rlver-ppo-think`). */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "condition names use letters, digits, '.', '_' and '-'"),
  agent: AgentConfigSchema,
});
export type ConditionConfig = z.infer<typeof ConditionConfigSchema>;

export const OfflineSimulatorConfigSchema = z.strictObject({ kind: z.literal("offline") });
/** SAGE-style simulated user on an LLM (two stages per turn, or one with `fused`). */
export const LlmSimulatorConfigSchema = z.strictObject({
  kind: z.literal("llm"),
  endpoint: ModelEndpointConfig,
  /** Appraisal and reply in one call: cheaper, but the reply cannot see the adjusted, clamped emotion. */
  fused: z.boolean().default(false),
  /** Unusable (non-JSON, out-of-range) outputs are retried this many times before the dialogue ends as `error`. */
  maxOutputRetries: z.number().int().min(0).max(10).default(2),
  /** Overrides the prompt pack's sampling temperature. */
  temperature: z.number().min(0).max(2).optional(),
  /** Overrides the prompt pack's token limit. */
  maxTokens: z.number().int().positive().optional(),
  /**
   * The simulator's prompts: `aeb-json`, `sage`, `rlver`, `aeb-paper`, or `{ dir: PATH }` for a
   * pack of your own (docs/models.md). Without it each scenario gets its preset's pack: `sage` for
   * SAGE profiles, `rlver` for RLVER's, `aeb-json` for the adversarial suites.
   */
  promptPack: PromptPackRefSchema.optional(),
});
export const SimulatorConfigSchema = z.discriminatedUnion("kind", [OfflineSimulatorConfigSchema, LlmSimulatorConfigSchema]);
export type SimulatorConfig = z.infer<typeof SimulatorConfigSchema>;

export const ScenarioSelectionSchema = z.strictObject({
  /**
   * A directory or file of scenario YAML (default: the suites shipped with AEB), or a SAGE/RLVER
   * profile file as `sage:PATH` / `rlver:PATH` (the cooperative suite, docs/sage-interop.md).
   */
  path: z.string().optional(),
  /** Only scenarios of this suite (`full`, `starter`, `classic`); default `full` for the built-in suites. */
  suite: z.string().optional(),
  types: z.array(TrajectoryTypeSchema).optional(),
  ids: z.array(z.string()).optional(),
  /** With a `sage:`/`rlver:` profile file: skip (and list) invalid lines instead of failing. */
  skipInvalid: z.boolean().optional(),
  /**
   * Play every selected scenario under this preset instead of the one its file names (e.g.
   * `aeb-plus`, the project's own loop on the paper's scale; data/presets.yaml, docs/fidelity.md).
   */
  preset: PresetName.optional(),
});

const JudgeName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "judge names use letters, digits, '.', '_' and '-'");

/** ECS judges: the offline affect-lexicon judge, or an LLM (any family; the paper uses a cross-family one). */
export const EcsJudgeConfigSchema = z.discriminatedUnion("kind", [
  z.strictObject({ name: JudgeName, kind: z.literal("offline") }),
  z.strictObject({
    name: JudgeName,
    kind: z.literal("llm"),
    endpoint: ModelEndpointConfig,
    maxOutputRetries: z.number().int().min(0).max(10).default(2),
    /**
     * The judge's prompt: `aeb` (default; anchors 0 breaking point, 50 unsettled, 100 at peace) or
     * `aeb-paper` (the AEB paper's anchors: 0 devastated/hostile, 50 neutral, 100 very satisfied).
     */
    prompt: z.enum(["aeb", "aeb-paper"]).optional(),
    /**
     * A turn the judge cannot read after its retries: `exclude` (default) leaves it out of ECS;
     * `impute-50` scores it p=50, c=0 as the AEB paper did. Either way it is listed in the record's
     * `errors`, and `imputed` counts the imputed turns.
     */
    unreadableTurn: z.enum(["exclude", "impute-50"]).optional(),
    /** Sampling temperature of the judge (default 0; the AEB paper's judge sampled at its simulator's 0.7). */
    temperature: z.number().min(0).max(2).optional(),
    /** Token limit of the judge's answer (default: the endpoint's). */
    maxTokens: z.number().int().positive().optional(),
  }),
]);
export type EcsJudgeConfig = z.infer<typeof EcsJudgeConfigSchema>;

/** Independent HID judges (LLM), reported beside the simulator's own HID. */
export const HidJudgeConfigSchema = z.strictObject({
  name: JudgeName,
  kind: z.literal("llm"),
  endpoint: ModelEndpointConfig,
  maxOutputRetries: z.number().int().min(0).max(10).default(2),
});
export type HidJudgeConfig = z.infer<typeof HidJudgeConfigSchema>;

const uniqueNames = <T extends { name: string }>(list: T[]) => new Set(list.map((item) => item.name)).size === list.length;

export const JudgesConfigSchema = z.strictObject({
  /** The first ECS judge gives each condition's `ecs`; the others are reported beside it, by name. */
  ecs: z.array(EcsJudgeConfigSchema).refine(uniqueNames, { message: "ECS judge names must be unique" }).default([{ name: "offline-lexicon", kind: "offline" }]),
  hid: z.array(HidJudgeConfigSchema).refine(uniqueNames, { message: "HID judge names must be unique" }).default([]),
});
export type JudgesConfig = z.infer<typeof JudgesConfigSchema>;

/** The one config file of a run (`aeb run --config FILE`); flags override it. */
export const RunConfigSchema = z.strictObject({
  seed: z.number().int().min(0).default(1),
  repeats: z.number().int().positive().default(1),
  concurrency: z.number().int().positive().default(8),
  scenarios: ScenarioSelectionSchema.default({}),
  simulator: SimulatorConfigSchema.default({ kind: "offline" }),
  conditions: z
    .array(ConditionConfigSchema)
    .min(1)
    .refine((conditions) => new Set(conditions.map((condition) => condition.name)).size === conditions.length, {
      message: "condition names must be unique",
    })
    .default(REFERENCE_AGENT_IDS.map((id) => ({ name: id, agent: { kind: "reference" as const, id } }))),
  /** Judges run on each finished dialogue (and afresh with `aeb judge`). */
  judges: JudgesConfigSchema.default({ ecs: [{ name: "offline-lexicon", kind: "offline" }], hid: [] }),
  /**
   * Count visible replies in tokens too: a Hugging Face tokenizer.json, or a model directory
   * holding one (docs/reports.md). The same tokenizer counts every condition.
   */
  tokenizer: z.strictObject({ path: z.string().min(1) }).optional(),
  /** On-disk response cache for every model call, so identical reruns send no request. */
  cache: z.strictObject({ dir: z.string().min(1) }).optional(),
  /** Stop the run (exit non-zero) if more than this fraction of dialogues end in error. */
  maxErrorRate: z.number().min(0).max(1).default(0),
  /**
   * Stop early on a systematic failure: when the first `dialogues` dialogues this invocation
   * records all ended in error with the same kind and stage (a wrong key, model name or prompt
   * file fails every dialogue alike), the run stops with that cause and the command to resume,
   * instead of spending every dialogue's retries. 0 never stops early.
   */
  earlyStop: z.strictObject({ dialogues: z.number().int().min(0).default(5) }).default({ dialogues: 5 }),
});
export type RunConfigInput = z.input<typeof RunConfigSchema>;
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** Validates a config object; errors name the field. */
export function parseRunConfig(raw: unknown, source: string): RunConfig {
  const parsed = RunConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(`${source}: invalid config:\n${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

export function loadRunConfig(path: string): RunConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config ${path} is not valid YAML: ${(error as Error).message}`);
  }
  return parseRunConfig(raw, path);
}
