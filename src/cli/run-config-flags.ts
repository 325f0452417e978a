/**
 * The run config that `aeb run`, `aeb serve` and `aeb probe` build from their shared flags: the
 * config file (or the defaults) with the scenario selection, seed, repeats and one model under test
 * laid over it. One module, so the commands agree and none imports another.
 */
import { ConfigError } from "../core/errors.js";
import { PresetName } from "../core/preset.js";
import { loadRunConfig, parseRunConfig, type RunConfig } from "../runner/run-config.js";
import { parseTypeList } from "../scenarios/load-scenarios.js";

/** The flags a run config is built from; each command offers the ones it needs. */
export interface RunConfigFlags {
  config?: string;
  scenarios?: string;
  suite?: string;
  types?: string;
  repeats?: number;
  seed?: number;
  concurrency?: number;
  tokenizer?: string;
  skipInvalid?: boolean;
  preset?: string;
  scenario?: string[];
  agentUrl?: string;
  agentModel?: string;
  agentName?: string;
  apiKeyEnv?: string;
  think?: boolean;
}

/** `--preset NAME`: one of the presets of data/presets.yaml. */
function parsePresetName(value: string): PresetName {
  const parsed = PresetName.safeParse(value);
  if (!parsed.success) throw new ConfigError(`--preset: unknown preset "${value}" (known: ${PresetName.options.join(", ")})`);
  return parsed.data;
}

/** The condition of `--agent-url URL --agent-model NAME`: one model under test, no config file needed. */
function agentFromFlags(flags: RunConfigFlags): RunConfig["conditions"] {
  if (flags.agentUrl === undefined && flags.agentModel === undefined) {
    for (const [flag, value] of [
      ["--agent-name", flags.agentName],
      ["--api-key-env", flags.apiKeyEnv],
      ["--think", flags.think],
    ] as const) {
      if (value !== undefined) throw new ConfigError(`${flag} goes with --agent-url and --agent-model`);
    }
    return [];
  }
  if (flags.agentUrl === undefined || flags.agentModel === undefined)
    throw new ConfigError("give both --agent-url URL and --agent-model NAME (the model's name on that server)");
  if (flags.config !== undefined)
    throw new ConfigError(
      "--agent-url runs one agent without a config file; with --config, add the agent to the config's conditions instead",
    );
  const think = flags.think === true;
  const name =
    flags.agentName ??
    `${flags.agentModel.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "agent"}${think ? "-think" : ""}`;
  const parsed = parseRunConfig(
    {
      conditions: [
        {
          name,
          agent: {
            kind: "llm",
            think,
            endpoint: {
              baseUrl: flags.agentUrl,
              model: flags.agentModel,
              ...(flags.apiKeyEnv !== undefined ? { apiKeyEnv: flags.apiKeyEnv } : {}),
            },
          },
        },
      ],
    },
    "--agent-url/--agent-model",
  );
  return parsed.conditions;
}

/** The config file (or the defaults) with the flags laid over it; a bad flag is a ConfigError naming it. */
export function configFromFlags(flags: RunConfigFlags): RunConfig {
  const agent = agentFromFlags(flags);
  const base = flags.config ? loadRunConfig(flags.config) : parseRunConfig({}, "defaults");
  const scenarios = { ...base.scenarios };
  if (flags.scenarios !== undefined) {
    scenarios.path = flags.scenarios;
    delete scenarios.suite;
  }
  if (flags.suite !== undefined) scenarios.suite = flags.suite;
  if (flags.skipInvalid === true) scenarios.skipInvalid = true;
  if (flags.types !== undefined) scenarios.types = parseTypeList(flags.types);
  if (flags.preset !== undefined) scenarios.preset = parsePresetName(flags.preset);
  if (flags.scenario !== undefined)
    scenarios.ids = flags.scenario
      .flatMap((list) => list.split(","))
      .map((id) => id.trim())
      .filter(Boolean);
  return {
    ...base,
    ...(agent.length > 0 ? { conditions: agent } : {}),
    scenarios,
    ...(flags.repeats !== undefined ? { repeats: flags.repeats } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.tokenizer !== undefined ? { tokenizer: { path: flags.tokenizer } } : {}),
  };
}
