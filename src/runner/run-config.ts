import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, formatIssues } from "../core/errors.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { OFFLINE_AGENT_IDS, REFERENCE_AGENT_IDS } from "../agents/reference-agents.js";
import { ModelEndpointConfig } from "../llm/endpoint-config.js";

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
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
});

export const AgentConfigSchema = z.discriminatedUnion("kind", [ReferenceAgentConfigSchema, LlmAgentConfigSchema]);
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
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
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
});

const JudgeName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "judge names use letters, digits, '.', '_' and '-'");

/** ECS judges: the offline affect-lexicon judge, or an LLM (any family; the paper uses a cross-family one). */
export const EcsJudgeConfigSchema = z.discriminatedUnion("kind", [
  z.strictObject({ name: JudgeName, kind: z.literal("offline") }),
  z.strictObject({ name: JudgeName, kind: z.literal("llm"), endpoint: ModelEndpointConfig, maxOutputRetries: z.number().int().min(0).max(10).default(2) }),
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
