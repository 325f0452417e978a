/**
 * Who scored a result: the simulated user, as a short label. Scores are comparable only within
 * one simulated user (SAGE's own files show the simulator alone moving a model's score by 11 to
 * 28 points), so the leaderboard groups by it, `aeb compare` shows it, and `aeb agreement`
 * measures how far two of them agree.
 *
 * - an `aeb run` directory: run.json's `config.simulator`: `offline` for the offline rule-based
 *   user; for an LLM user its model, and its prompt pack when one is named (`MODEL, pack NAME`);
 * - an `aeb import sage` directory: import.json's `simulator` of each file (recorded from
 *   `--simulator`, else from the file's folder);
 * - a SAGE result file: `--simulator NAME`, else its folder's name, with SAGE's `results-` prefix
 *   and `-simulator` suffix dropped (`results-deepseek-v3-simulator` -> `deepseek-v3`).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import { AebError, formatIssues } from "../core/errors.js";
import { IMPORT_MANIFEST_FILE } from "../record/files.js";
import { readRecordedConfig } from "../record/load-run.js";

/** The label of a result whose simulated user nothing records. */
export const UNKNOWN_SIMULATED_USER = "unknown";

/** The simulated user of a SAGE result file, from its folder: `results-deepseek-v3-simulator` -> `deepseek-v3`. */
export function simulatorOfSageFolder(file: string): string {
  const folder = basename(dirname(resolve(file)));
  const trimmed = folder.replace(/^results[-_]/u, "").replace(/[-_]simulator$/u, "");
  return trimmed === "" ? folder : trimmed;
}

const PackSchema = z.union([z.string(), z.looseObject({ dir: z.string() })]);
const RecordedSimulatorSchema = z.union([
  z.looseObject({ kind: z.literal("offline") }),
  z.looseObject({ kind: z.literal("llm"), endpoint: z.looseObject({ model: z.string() }), promptPack: PackSchema.optional() }),
]);

/**
 * The label of a run config's simulator (run.json's `config.simulator`): `offline`, or the LLM
 * user's model with its prompt pack when the config names one (without one each scenario gets its
 * preset's default pack, so the model alone names the user). Null for a shape this version does
 * not know. Never an endpoint URL or a key.
 */
export function simulatorLabelOfConfig(simulator: unknown): string | null {
  const parsed = RecordedSimulatorSchema.safeParse(simulator);
  if (!parsed.success) return null;
  if (parsed.data.kind === "offline") return "offline";
  const pack = parsed.data.promptPack;
  if (pack === undefined) return parsed.data.endpoint.model;
  return `${parsed.data.endpoint.model}, pack ${typeof pack === "string" ? pack : pack.dir}`;
}

/** One imported file as import.json records it. */
const ImportedFileSchema = z.looseObject({
  file: z.string(),
  condition: z.string(),
  dialogues: z.number().int().min(0),
  skippedLines: z.array(z.number().int()),
  /** The simulated user that scored the file: `--simulator NAME`, else the file's folder. Absent in imports made before it was recorded. */
  simulator: z.string().optional(),
  /** Where `simulator` came from. */
  simulatorFrom: z.enum(["flag", "folder"]).optional(),
});

/** import.json: what `aeb import sage` read into a directory. */
export const ImportManifestSchema = z.looseObject({
  format: z.literal(1),
  source: z.literal("sage-results"),
  files: z.array(ImportedFileSchema),
});
export type ImportManifest = z.infer<typeof ImportManifestSchema>;

/** Reads import.json of a directory; undefined when there is none, an error naming the field when it is not one. */
export function readImportManifest(dir: string): ImportManifest | undefined {
  const path = join(dir, IMPORT_MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new AebError(`${path} is not valid JSON (${(error as Error).message})`);
  }
  const parsed = ImportManifestSchema.safeParse(value);
  if (!parsed.success) throw new AebError(`${path} is not an import manifest:\n${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** The simulated users of a results directory: one for every condition, or per condition (an import). */
export interface DirectorySimulatedUsers {
  /** The label of a condition. */
  of(condition: string): string;
  /** Where the labels come from, for notes. */
  from: "run.json" | "import.json" | "nothing";
}

/**
 * The simulated user of each condition of a results directory: run.json's simulator for a run of
 * `aeb run`, import.json's per-file simulator for an import (the folder of the recorded file path
 * for an import made before it was recorded), else `fallback` (a `--simulator` flag) or `unknown`.
 */
export function simulatedUsersOfDirectory(dir: string, fallback?: string): DirectorySimulatedUsers {
  const { config } = readRecordedConfig(dir);
  if (config !== undefined) {
    const label = simulatorLabelOfConfig(config.simulator) ?? fallback ?? UNKNOWN_SIMULATED_USER;
    return { of: () => label, from: "run.json" };
  }
  const manifest = readImportManifest(dir);
  if (manifest !== undefined) {
    const byCondition = new Map(manifest.files.map((file) => [file.condition, file.simulator ?? simulatorOfSageFolder(file.file)]));
    return { of: (condition) => byCondition.get(condition) ?? fallback ?? UNKNOWN_SIMULATED_USER, from: "import.json" };
  }
  return { of: () => fallback ?? UNKNOWN_SIMULATED_USER, from: "nothing" };
}
