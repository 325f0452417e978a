import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
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
      out.endpoint = Object.fromEntries(DEFINING_ENDPOINT_FIELDS.filter((field) => endpoint[field] !== undefined).map((field) => [field, endpoint[field]]));
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
    for (const file of filesUnder(join(packageRoot, directory))) hashes[relative(packageRoot, file).split(sep).join("/")] = contentHash(readFileSync(file));
  }
  return hashes;
}

/**
 * What decides a run's results, as run.json records it and its hash guards the directory: the AEB
 * version, the seed and repeats, the plug-ins and their models' sampling parameters, the content
 * of every selected scenario (by id), the tokenizer's vocabulary, and the content of every data
 * file and prompt. Concurrency, caches, output paths and transport settings are left out.
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
    files: packageDataFileHashes(),
  };
}
