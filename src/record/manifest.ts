import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.js";
import { z } from "zod";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { stableHash } from "../core/stable-json.js";
import { MANIFEST_FILE } from "./files.js";
import { ProvenanceSchema } from "./provenance.js";

/** One process that wrote into the directory (`aeb run`, `aeb judge`...). */
export const InvocationSchema = z.strictObject({
  /** What ran: `aeb run`, `aeb judge`, or `library` for runBenchmark called from code. */
  command: z.string(),
  /** When it claimed the directory (ISO 8601, UTC). */
  startedAt: z.string(),
  /** When it ended; null while it runs, or when it was killed. */
  endedAt: z.string().nullable(),
  /**
   * `running` until it ends (a killed process leaves it so), then `finished` (every planned
   * dialogue recorded), `stopped` (interrupted cleanly: Ctrl-C, an endpoint outage, a failed
   * preflight) or `failed` (an error ended it).
   */
  outcome: z.enum(["running", "finished", "stopped", "failed"]),
  /** The hash that guarded the directory when it ran (see `definingHash`). */
  definingHash: z.string(),
  /** The directory was taken over from a run with another definition (`--force`, or nothing was finished). */
  replaced: z.string().optional(),
  provenance: ProvenanceSchema,
});
export type Invocation = z.infer<typeof InvocationSchema>;

/** run.json: what defines the run's results, how it was configured, and who ran it. */
export const RunManifestSchema = z.strictObject({
  format: z.literal(2),
  /** Hash of `defining`: a rerun into the directory must have the same one to resume. */
  definingHash: z.string(),
  /**
   * Everything that decides the results: the AEB version, the seed and repeats, the models and
   * their sampling parameters (not transport settings such as URLs, timeouts, retries or
   * concurrency), the content of each scenario, and the content of every data file and prompt
   * (and of any file the config names). Changing any of them changes the results.
   */
  defining: z.record(z.string(), z.unknown()),
  /** The resolved run config (every default filled in, secrets redacted). */
  config: z.unknown(),
  /** Every process that wrote into the directory, oldest first. */
  invocations: z.array(InvocationSchema),
});
export type RunManifest = z.infer<typeof RunManifestSchema>;

/** run.json as written by AEB before provenance existed. */
const LegacyManifestSchema = z.looseObject({ format: z.literal(1), configHash: z.string(), config: z.unknown() });

export type ManifestOnDisk = { kind: "none" } | { kind: "current"; manifest: RunManifest } | { kind: "legacy"; config: unknown };

/** Reads run.json; an unreadable one is an error naming the file and what to do. */
export function readManifest(dir: string): ManifestOnDisk {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return { kind: "none" };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunDirectoryError(`${path} is not valid JSON (${(error as Error).message}); move it away or choose another --out`);
  }
  const current = RunManifestSchema.safeParse(value);
  if (current.success) return { kind: "current", manifest: current.data };
  const legacy = LegacyManifestSchema.safeParse(value);
  if (legacy.success) return { kind: "legacy", config: legacy.data.config };
  throw new RunDirectoryError(
    `${path} is not a run manifest:\n${formatIssues(current.error.issues)}\n(move it away or choose another --out)`,
  );
}

/** The run config a manifest records (for reports of old and new directories alike), if any. */
export function manifestConfig(manifest: ManifestOnDisk): unknown {
  return manifest.kind === "current" ? manifest.manifest.config : manifest.kind === "legacy" ? manifest.config : undefined;
}

/** Writes run.json atomically (a temporary file renamed over it), so a kill never leaves half of it. */
export function writeManifest(dir: string, manifest: RunManifest): void {
  writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(RunManifestSchema.parse(manifest), null, 2)}\n`);
}

export function definingHashOf(defining: Readonly<Record<string, unknown>>): string {
  return stableHash(defining);
}

const MAX_LISTED = 8;

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Leaf paths where two JSON values differ. */
function differences(before: unknown, after: unknown, path: string, out: string[]): void {
  if (stableHash(before) === stableHash(after)) return;
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => differences(item, after[index], pathOf(path, index), out));
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort())
      differences(before[key], after[key], pathOf(path, key), out);
    return;
  }
  out.push(`${path || "(everything)"}: ${shown(before)} -> ${shown(after)}`);
}

/**
 * What changed between the definition a directory was made with and a new one, in words a user
 * can act on: the files and scenarios whose content changed, the AEB version, the config fields.
 */
export function describeDefiningChanges(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  const changes: string[] = [];
  const contentChanges = (label: string, key: string) => {
    const old = (before[key] ?? {}) as Record<string, string>;
    const now = (after[key] ?? {}) as Record<string, string>;
    for (const name of [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()) {
      if (old[name] === now[name]) continue;
      changes.push(
        old[name] === undefined
          ? `${label} ${name} is new`
          : now[name] === undefined
            ? `${label} ${name} is no longer used`
            : `${label} ${name} changed`,
      );
    }
  };
  contentChanges("file", "files");
  contentChanges("scenario", "scenarios");
  if (before.aebVersion !== after.aebVersion) changes.push(`AEB version ${String(before.aebVersion)} -> ${String(after.aebVersion)}`);
  const rest = (value: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(Object.entries(value).filter(([key]) => !["files", "scenarios", "aebVersion"].includes(key)));
  const fields: string[] = [];
  differences(rest(before), rest(after), "", fields);
  changes.push(...fields.map((field) => `config ${field}`));
  if (changes.length <= MAX_LISTED) return changes;
  return [...changes.slice(0, MAX_LISTED), `and ${changes.length - MAX_LISTED} more`];
}
