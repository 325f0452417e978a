import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { packageRoot } from "../core/data-files.js";
import { stableHash } from "../core/stable-json.js";
import type { ReplyTokenizer } from "../metrics/reply-tokenizer.js";
import { aebVersion } from "../record/provenance.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { RunConfig } from "./run-config.js";

/**
 * The fields of a model endpoint that decide what the model says. Everything else (replica URLs,
 * the API key's variable, timeouts, retries, concurrency, streaming) decides only how the answer
 * arrives, so a run may resume after changing it (raising a timeout after an outage, adding a
 * replica).
 */
const DEFINING_ENDPOINT_FIELDS = ["model", "temperature", "topP", "maxTokens", "seed", "structuredOutput", "extraBody"] as const;

/** Plug-in fields that only decide how often an unusable output is asked for again, not what a finished dialogue holds. */
const TRANSPORT_PLUGIN_FIELDS = new Set(["maxOutputRetries"]);

/** A plug-in config (agent, simulated user, judge) without the fields that do not decide results. */
export function definingPluginConfig(plugin: unknown): unknown {
  if (plugin === null || typeof plugin !== "object" || Array.isArray(plugin)) return plugin;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plugin as Record<string, unknown>)) {
    if (TRANSPORT_PLUGIN_FIELDS.has(key)) continue;
    if (key === "endpoint" && value !== null && typeof value === "object") {
      const endpoint = value as Record<string, unknown>;
      out.endpoint = Object.fromEntries(
        DEFINING_ENDPOINT_FIELDS.filter((field) => endpoint[field] !== undefined).map((field) => [field, endpoint[field]]),
      );
    } else out[key] = value;
  }
  return out;
}

/** Data directories of the package whose every file may decide results: lexicons, rubrics, presets, reaction lines, prompts. */
const DATA_DIRECTORIES = ["data", "prompts"];

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

export function contentHash(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 16);
}

/**
 * The content hash of every data file and prompt shipped with the package, by path relative to the
 * package root. All of them, not only those a run reads: a run reads its files lazily, after it
 * has claimed its directory, so "the files used" is not known in advance; hashing all of them
 * never lets a changed file through.
 */
export function packageDataFileHashes(): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const directory of DATA_DIRECTORIES) {
    for (const file of filesUnder(join(packageRoot, directory)))
      hashes[relative(packageRoot, file).split(sep).join("/")] = contentHash(readFileSync(file));
  }
  return hashes;
}

/**
 * The content hash of every file the config names whose content decides results (a policy's
 * system prompt file, a prompt pack of one's own), by the path as written in the config
 * (`systemPromptFile:PATH`, `promptPack:DIR/FILE`). A file that cannot be read is left to the
 * plug-in that reads it, which names it in its error.
 */
export function configFileHashes(config: RunConfig): Record<string, string> {
  const hashes: Record<string, string> = {};
  const add = (key: string, path: string) => {
    try {
      hashes[key] = contentHash(readFileSync(path));
    } catch {
      // Reported by the plug-in that reads it.
    }
  };
  for (const condition of config.conditions) {
    if (condition.agent.kind === "llm" && condition.agent.systemPromptFile !== undefined)
      add(`systemPromptFile:${condition.agent.systemPromptFile}`, resolve(condition.agent.systemPromptFile));
  }
  const pack = config.simulator.kind === "llm" ? config.simulator.promptPack : undefined;
  if (pack !== undefined && typeof pack === "object") {
    let isDirectory = false;
    try {
      isDirectory = statSync(pack.dir).isDirectory();
    } catch {
      // Reported by the pack loader.
    }
    if (isDirectory)
      for (const file of filesUnder(resolve(pack.dir)))
        add(`promptPack:${pack.dir}/${relative(resolve(pack.dir), file).split(sep).join("/")}`, file);
  }
  return hashes;
}

/**
 * What decides a run's results, as run.json records it and its hash guards the directory: the AEB
 * version, the seed and repeats, the plug-ins and their models' sampling parameters, the content
 * of every selected scenario (by id), the tokenizer's vocabulary, and the content of every data
 * file and prompt, of the package and of the config's own files (system prompt files, a prompt
 * pack directory). Concurrency, caches, output paths and transport settings are left out.
 */
export function resultDefinition(config: RunConfig, scenarios: readonly Scenario[], tokenizer?: ReplyTokenizer): Record<string, unknown> {
  return {
    aebVersion: aebVersion(),
    seed: config.seed,
    repeats: config.repeats,
    simulator: definingPluginConfig(config.simulator),
    conditions: config.conditions.map((condition) => ({ name: condition.name, agent: definingPluginConfig(condition.agent) })),
    judges: { ecs: config.judges.ecs.map(definingPluginConfig), hid: config.judges.hid.map(definingPluginConfig) },
    // The vocabulary, not the path: the same tokenizer.json elsewhere gives the same counts.
    ...(tokenizer !== undefined ? { tokenizer: { name: tokenizer.name, sha256: tokenizer.sha256 } } : {}),
    scenarios: Object.fromEntries(scenarios.map((scenario) => [scenario.id, stableHash(scenario)])),
    files: { ...packageDataFileHashes(), ...configFileHashes(config) },
  };
}
