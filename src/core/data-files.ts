import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { AebError, formatIssues } from "./errors.js";

/**
 * The package root (where `data/`, `scenarios/` and `prompts/` live), found from this file's
 * location so it works from `src/` under vitest and from `dist/` once built.
 */
export const packageRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

const dataPaths = new Map<string, string>();

/** The path of a file under data/ (memoised: loaders ask for theirs on every turn, and `join` normalises each time). */
export function dataPath(...parts: string[]): string {
  const key = parts.join("\u0000");
  let path = dataPaths.get(key);
  if (path === undefined) dataPaths.set(key, (path = join(packageRoot, "data", ...parts)));
  return path;
}

const yamlCache = new Map<string, unknown>();
const parsedCache = new Map<string, { schema: unknown; data: unknown }>();

/**
 * Reads a YAML data file shipped with the package and validates it; errors name file and field.
 * Parsed results are cached per file and schema: data files are read on the hot path of every turn.
 */
export function loadDataFile<T>(path: string, schema: z.ZodType<T>): T {
  const cached = parsedCache.get(path);
  if (cached !== undefined && cached.schema === schema) return cached.data as T;
  const cacheKey = path;
  let raw = yamlCache.get(cacheKey);
  if (raw === undefined) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new AebError(`cannot read data file ${path}: ${(error as Error).message}`);
    }
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw new AebError(`data file ${path} is not valid YAML: ${(error as Error).message}`);
    }
    yamlCache.set(cacheKey, raw);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new AebError(`data file ${path} is invalid:\n${formatIssues(parsed.error.issues)}`);
  }
  parsedCache.set(path, { schema, data: parsed.data });
  return parsed.data;
}
