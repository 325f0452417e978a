import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { packageRoot } from "../core/data-files.js";

/** Which AEB made a record, and on what. */
export const ProvenanceSchema = z.strictObject({
  /** The package version (package.json). */
  aebVersion: z.string(),
  /** The git commit of the checkout AEB ran from; null when it did not run from a checkout (an npm install). */
  commit: z.string().nullable(),
  /** Whether that checkout had uncommitted changes (then the commit alone does not identify the code). */
  commitDirty: z.boolean().nullable(),
  /** Node.js version. */
  node: z.string(),
  /** Operating system and architecture. */
  platform: z.string(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

let cached: Provenance | undefined;

/** The package version, from the package's own package.json. */
export function aebVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}

function git(args: string[]): string | null {
  try {
    return execFileSync("git", ["-C", packageRoot, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5_000,
    }).trim();
  } catch {
    return null;
  }
}

/**
 * The provenance of this process, computed once. The commit is read only when the package itself
 * is a git checkout (its root holds `.git`), never from a repository the package merely sits in.
 */
export function currentProvenance(): Provenance {
  if (cached === undefined) {
    const checkout = existsSync(join(packageRoot, ".git"));
    const commit = checkout ? git(["rev-parse", "HEAD"]) : null;
    const status = commit === null ? null : git(["status", "--porcelain", "--untracked-files=no"]);
    cached = {
      aebVersion: aebVersion(),
      commit,
      commitDirty: status === null ? null : status !== "",
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    };
  }
  return cached;
}
