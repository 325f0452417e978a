import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { PresetName } from "../core/preset.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import { OFFLINE_AGENT_IDS, REFERENCE_AGENT_IDS } from "../agents/reference-agents.js";
import { ModelEndpointConfig } from "../llm/endpoint-config.js";
import { BUILTIN_PACKS, PromptPackRefSchema } from "../prompts/prompt-pack.js";
import { explainConfigIssues, type JsonSchemaNode } from "./config-issues.js";

/**
 * Every key below carries a description (`.describe`): it is what editors show on hover (through
 * schemas/run-config.schema.json) and what docs/config-reference.md lists, so a config can be
 * written without reading this file. A test fails when a key has none.
 */

/** An offline agent: a reference baseline, or a gaming agent that probes the offline user (docs/offline-user.md). */
export const ReferenceAgentConfigSchema = z
  .strictObject({
    kind: z.literal("reference").describe("`reference`: an offline agent shipped with AEB, no model needed"),
    id: z
      .enum(OFFLINE_AGENT_IDS)
      .describe(
        "which one: the reference baselines (formulaic, sycophant, advice, labeler, attuned) or a gaming agent that probes the offline user (docs/offline-user.md)",
      ),
  })
  .describe("An offline agent shipped with AEB (a reference baseline or a gaming probe).");

/** A model under test behind an OpenAI-compatible endpoint (vLLM, SGLang, Ollama, OpenAI...). */
export const LlmAgentConfigSchema = z
  .strictObject({
    kind: z.literal("llm").describe("`llm`: a model under test behind an OpenAI-compatible endpoint (vLLM, SGLang, Ollama, OpenAI...)"),
    endpoint: ModelEndpointConfig.describe("where the model is served and how it is called"),
    think: z
      .boolean()
      .default(false)
      .describe("think first, then reply (`<think>...</think>` or the server's reasoning field); false: reply directly"),
    systemPrompt: z.string().min(1).optional().describe("replaces the built-in system prompt with this text"),
    systemPromptFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "replaces the built-in system prompt with this file's text (e.g. the prompt RLVER's checkpoints were trained with: docs/reproduce-paper.md says how to get it), read before any model call; a path relative to the working directory",
      ),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe("sampling temperature of the agent's replies (default: the endpoint's, else the server's)"),
    maxTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("token limit of one reply, thinking included (default: the endpoint's, else the server's)"),
  })
  .refine((agent) => agent.systemPrompt === undefined || agent.systemPromptFile === undefined, {
    message: "give systemPrompt or systemPromptFile, not both",
    path: ["systemPromptFile"],
  })
  .describe("A model under test behind an OpenAI-compatible endpoint.");

/**
 * An agent given in code: `runBenchmark({ config, agents: { NAME: agent } })` supplies it under the
 * condition's name (a function of the visible conversation, or an object with `reply`). `id` names
 * it and its version in run.json: change it when the agent's code changes, so a rerun into the
 * same directory is refused rather than mixing two agents.
 */
export const LibraryAgentConfigSchema = z
  .strictObject({
    kind: z
      .literal("library")
      .describe("`library`: an agent given in code, `runBenchmark({ config, agents: { NAME: agent } })` (examples/library-agent.mjs)"),
    id: z
      .string()
      .min(1)
      .describe(
        "names the agent and its version in run.json: change it when the agent's code changes, so a rerun into the same directory is refused rather than mixing two agents",
      ),
  })
  .describe("An agent given in code through the library API.");

export const AgentConfigSchema = z
  .discriminatedUnion("kind", [ReferenceAgentConfigSchema, LlmAgentConfigSchema, LibraryAgentConfigSchema])
  .describe("The agent of the condition: `kind` is reference (offline), llm (a model at an endpoint) or library (code)");
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export const ConditionConfigSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "condition names use letters, digits, '.', '_' and '-'")
      .describe("the condition's name in every result, e.g. `rlver-ppo-think` (letters, digits, '.', '_', '-'; unique)"),
    agent: AgentConfigSchema,
  })
  .describe("One condition: a named agent, played on every selected scenario.");
export type ConditionConfig = z.infer<typeof ConditionConfigSchema>;

export const OfflineSimulatorConfigSchema = z
  .strictObject({
    kind: z
      .literal("offline")
      .describe("`offline`: the rule-based simulated user; reads the moves and phrases of a reply (docs/offline-user.md), no model needed"),
  })
  .describe("The offline, rule-based simulated user.");
/** SAGE-style simulated user on an LLM (two stages per turn, or one with `fused`). */
export const LlmSimulatorConfigSchema = z
  .strictObject({
    kind: z.literal("llm").describe("`llm`: a SAGE-style simulated user on a model (an appraisal, then a reply in persona, each turn)"),
    endpoint: ModelEndpointConfig.describe("where the simulator's model is served and how it is called"),
    fused: z
      .boolean()
      .default(false)
      .describe("appraisal and reply in one call: cheaper, but the reply cannot see the adjusted, clamped emotion"),
    maxOutputRetries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe("unusable (non-JSON, out-of-range) simulator outputs are sampled again this many times before the dialogue ends in error"),
    temperature: z.number().min(0).max(2).optional().describe("overrides the prompt pack's sampling temperature"),
    maxTokens: z.number().int().positive().optional().describe("overrides the prompt pack's token limit"),
    promptPack: PromptPackRefSchema.optional().describe(
      `the simulator's prompts: ${BUILTIN_PACKS.join(", ")}, or { dir: PATH } for a pack of your own (docs/models.md); default: each scenario's preset's pack (sage for SAGE profiles, rlver for RLVER's, aeb-json for the adversarial suites)`,
    ),
  })
  .describe("A simulated user on a model at an OpenAI-compatible endpoint.");
export const SimulatorConfigSchema = z.discriminatedUnion("kind", [OfflineSimulatorConfigSchema, LlmSimulatorConfigSchema]);
export type SimulatorConfig = z.infer<typeof SimulatorConfigSchema>;

export const ScenarioSelectionSchema = z.strictObject({
  path: z
    .string()
    .optional()
    .describe(
      "a directory or file of scenario YAML (default: the suites shipped with AEB), or a SAGE/RLVER profile file as `sage:PATH` / `rlver:PATH` (the cooperative suite, docs/sage-interop.md)",
    ),
  suite: z
    .string()
    .optional()
    .describe(
      "only scenarios of this suite: `full`, `starter` or `classic` (the paper's one scenario per type); default `full` for the built-in suites",
    ),
  types: z
    .array(TrajectoryTypeSchema)
    .optional()
    .describe(`only these trajectory types: ${TrajectoryTypeSchema.options.join(", ")} (docs/trajectory-types.md)`),
  ids: z.array(z.string()).optional().describe("only these scenario ids (found in any suite); `aeb scenarios` lists them"),
  skipInvalid: z.boolean().optional().describe("with a `sage:`/`rlver:` profile file: skip (and list) invalid lines instead of failing"),
  preset: PresetName.optional().describe(
    `play every selected scenario under this preset (${PresetName.options.join(", ")}) instead of the one its file names, e.g. aeb-plus, the project's own loop on the paper's scale (data/presets.yaml, docs/fidelity.md)`,
  ),
});

const JudgeName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "judge names use letters, digits, '.', '_' and '-'")
  .describe("the judge's name in every result (letters, digits, '.', '_', '-'; unique)");
const judgeRetries = z
  .number()
  .int()
  .min(0)
  .max(10)
  .default(2)
  .describe(
    "an unreadable judge answer is sampled again this many times; after that the turn (ECS) or verdict (HID) is left out, and a rerun tries it again",
  );

/** ECS judges: the offline affect-lexicon judge, or an LLM (any family). */
export const EcsJudgeConfigSchema = z.discriminatedUnion("kind", [
  z
    .strictObject({
      name: JudgeName,
      kind: z
        .literal("offline")
        .describe("`offline`: the affect-lexicon baseline, which reads the user's messages only; a heuristic, never the headline ECS"),
    })
    .describe("The offline affect-lexicon ECS baseline."),
  z
    .strictObject({
      name: JudgeName,
      kind: z
        .literal("llm")
        .describe("`llm`: a model that reads only the visible conversation and predicts the emotion the user reports after each reply"),
      endpoint: ModelEndpointConfig.describe("where the judge's model is served and how it is called"),
      maxOutputRetries: judgeRetries,
      prompt: z
        .enum(["aeb", "aeb-paper"])
        .optional()
        .describe(
          "the judge's prompt: `aeb` (default; anchors 0 breaking point, 50 unsettled, 100 at peace) or `aeb-paper` (the AEB paper's anchors: 0 devastated/hostile, 50 neutral, 100 very satisfied)",
        ),
      unreadableTurn: z
        .enum(["exclude", "impute-50"])
        .optional()
        .describe(
          "a turn the judge cannot read after its retries: `exclude` (default) leaves it out of ECS; `impute-50` scores it p=50, c=0 as the AEB paper did. Either way it is listed in the record's `errors`, and `imputed` counts the imputed turns",
        ),
      temperature: z
        .number()
        .min(0)
        .max(2)
        .optional()
        .describe("sampling temperature of the judge (default 0; the AEB paper's judge sampled at its simulator's 0.7)"),
      maxTokens: z.number().int().positive().optional().describe("token limit of the judge's answer (default: the endpoint's)"),
    })
    .describe("An LLM ECS judge."),
]);
export type EcsJudgeConfig = z.infer<typeof EcsJudgeConfigSchema>;

/** Independent HID judges (LLM), reported beside the simulator's own HID. */
export const HidJudgeConfigSchema = z
  .strictObject({
    name: JudgeName,
    kind: z
      .literal("llm")
      .describe("`llm`: a model that reads the transcript and the hidden intention and must quote the agent's reply that addressed it"),
    endpoint: ModelEndpointConfig.describe("where the judge's model is served and how it is called"),
    maxOutputRetries: judgeRetries,
  })
  .describe("An independent HID judge, reported beside the simulator's own HID.");
export type HidJudgeConfig = z.infer<typeof HidJudgeConfigSchema>;

const uniqueNames = <T extends { name: string }>(list: T[]) => new Set(list.map((item) => item.name)).size === list.length;

export const JudgesConfigSchema = z.strictObject({
  ecs: z
    .array(EcsJudgeConfigSchema)
    .refine(uniqueNames, { message: "ECS judge names must be unique" })
    .default([{ name: "offline-lexicon", kind: "offline" }])
    .describe(
      "ECS judges: the first model judge gives each condition's headline `ecs`; the others are reported beside it, by name (default: the offline lexicon baseline only)",
    ),
  hid: z
    .array(HidJudgeConfigSchema)
    .refine(uniqueNames, { message: "HID judge names must be unique" })
    .default([])
    .describe("independent HID judges, reported beside the simulator's own HID (default: none)"),
});
export type JudgesConfig = z.infer<typeof JudgesConfigSchema>;

/** The one config file of a run (`aeb run --config FILE`); flags override it. */
export const RunConfigSchema = z
  .strictObject({
    seed: z
      .number()
      .int()
      .min(0)
      .default(1)
      .describe("run seed: the same seed, config and data give the same results, byte for byte offline (--seed overrides it)"),
    repeats: z
      .number()
      .int()
      .positive()
      .default(1)
      .describe("dialogues per condition and scenario, each with its own seed (--repeats overrides it)"),
    concurrency: z
      .number()
      .int()
      .positive()
      .default(8)
      .describe("dialogues in flight at once; results do not depend on it (--concurrency overrides it)"),
    scenarios: ScenarioSelectionSchema.default({}).describe("which scenarios to play (default: the built-in `full` suite)"),
    simulator: SimulatorConfigSchema.default({ kind: "offline" }).describe(
      "the simulated user: `offline` (default, rule-based) or `llm` (a model; docs/models.md)",
    ),
    conditions: z
      .array(ConditionConfigSchema)
      .min(1)
      .refine((conditions) => new Set(conditions.map((condition) => condition.name)).size === conditions.length, {
        message: "condition names must be unique",
      })
      .default(REFERENCE_AGENT_IDS.map((id) => ({ name: id, agent: { kind: "reference" as const, id } })))
      .describe("the agents compared, each a named condition (default: every reference agent)"),
    judges: JudgesConfigSchema.default({ ecs: [{ name: "offline-lexicon", kind: "offline" }], hid: [] }).describe(
      "judges run on each finished dialogue (and afresh with `aeb judge`)",
    ),
    tokenizer: z
      .strictObject({ path: z.string().min(1).describe("a Hugging Face tokenizer.json, or a model directory holding one") })
      .optional()
      .describe(
        "count visible replies in tokens too, with the same tokenizer for every condition (docs/reports.md; --tokenizer overrides it)",
      ),
    cache: z
      .strictObject({ dir: z.string().min(1).describe("the cache's directory") })
      .optional()
      .describe("an on-disk response cache for every model call, so an identical rerun sends no request"),
    maxErrorRate: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        "when more than this fraction of dialogues end in error, `aeb run` exits with code 2 (default 0: any error does); the finished dialogues are kept either way, and a rerun retries the failed ones",
      ),
    prices: z
      .record(
        z.string(),
        z.strictObject({
          promptPerMillion: z.number().min(0).describe("price of a million prompt tokens, in the currency you count in"),
          completionPerMillion: z.number().min(0).describe("price of a million completion tokens"),
        }),
      )
      .optional()
      .describe(
        "prices per million tokens by model name (endpoint.model), for the cost `aeb run` prints at the end beside the tokens each role used; never part of the results",
      ),
    earlyStop: z
      .strictObject({ dialogues: z.number().int().min(0).default(5).describe("how many first dialogues; 0 never stops early") })
      .default({ dialogues: 5 })
      .describe(
        "stop early on a systematic failure: when the first `dialogues` dialogues this invocation records all ended in error with the same kind and stage (a wrong key, model name or prompt fails every dialogue alike), the run stops with that cause and the command to resume, instead of spending every dialogue's retries",
      ),
    report: z
      .strictObject({
        reference: z
          .string()
          .min(1)
          .optional()
          .describe(
            "the reference condition: its pairs with every other condition form their own Holm family, shown first in the reports (default: attuned when a condition has that name)",
          ),
      })
      .optional()
      .describe("how summary.json and the reports compare the conditions (docs/statistics.md, Families)"),
  })
  .describe("The one config file of `aeb run --config FILE`; flags override it (docs/config-reference.md lists every key).");
export type RunConfigInput = z.input<typeof RunConfigSchema>;
export type RunConfig = z.infer<typeof RunConfigSchema>;

let inputJsonSchema: JsonSchemaNode | undefined;
/** The JSON Schema of what a person writes (built once, on the first invalid config). */
export function runConfigInputJsonSchema(): JsonSchemaNode {
  inputJsonSchema ??= z.toJSONSchema(RunConfigSchema, { io: "input", unrepresentable: "throw", target: "draft-2020-12" }) as JsonSchemaNode;
  return inputJsonSchema;
}

/** Validates a config object; errors name the key, what it is for, and the nearest allowed key or value. */
export function parseRunConfig(raw: unknown, source: string): RunConfig {
  const parsed = RunConfigSchema.safeParse(raw ?? {});
  if (!parsed.success)
    throw new ConfigError(`${source}: invalid config:\n${explainConfigIssues(parsed.error.issues, runConfigInputJsonSchema(), raw ?? {})}`);
  const reference = parsed.data.report?.reference;
  const names = parsed.data.conditions.map((condition) => condition.name);
  if (reference !== undefined && !names.includes(reference)) {
    throw new ConfigError(
      `${source}: invalid config:\n  report.reference: "${reference}" is not a condition of this config (conditions: ${names.join(", ")}); name one of them, or leave report.reference out to compare against attuned when a condition has that name`,
    );
  }
  return parsed.data;
}

/**
 * The YAML parser reports an over-indented line at the line before it (`suite: starter` then
 * `   types: [...]` reads as one value running on): name the line that is wrong, when the line after
 * the reported one is indented deeper than a line that already has its value.
 */
export function overIndentedLine(text: string, reported: number): string | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines[reported - 1];
  const next = lines.slice(reported).findIndex((line) => line.trim() !== "" && !line.trim().startsWith("#"));
  if (at === undefined || next === -1) return undefined;
  const following = lines[reported + next]!;
  const indent = (line: string) => line.length - line.trimStart().length;
  const hasValue = /^\s*(- )?[^#:]+:\s+\S/.test(at);
  // The keys of a sequence item sit two columns in from its dash.
  const keyColumn = indent(at) + (/^\s*- /.test(at) ? 2 : 0);
  if (!hasValue || indent(following) <= keyColumn) return undefined;
  return `line ${reported + next + 1} is indented deeper than line ${reported}, which already has its value: indent it as line ${reported} (a key of the same mapping) or less`;
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
    const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    const hint = line === undefined ? undefined : overIndentedLine(text, line);
    throw new ConfigError(
      `config ${path} is not valid YAML: ${(error as Error).message.trimEnd()}${hint === undefined ? "" : `\n${hint}`}`,
    );
  }
  return parseRunConfig(raw, path);
}
