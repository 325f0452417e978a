import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { dataPath } from "../core/data-files.js";
import { ConfigError, formatIssues } from "../core/errors.js";
import type { AdversarialType } from "../core/trajectory-type.js";
import { surfaceContentWords } from "../agents/user-text.js";
import { loadLexicon, type Language } from "../lexicon/lexicon.js";
import { PoolFileSchema, type PoolFile, type PoolTag } from "./pool-schema.js";

/** The pools shipped with AEB. */
export const BUILTIN_POOL_DIR = dataPath("probe", "pools");

/** A validated pool: its file, what it holds, and a hash of its content (part of the probe's definition). */
export interface FragmentPool extends PoolFile {
  file: string;
  sha256: string;
}

/** Reads and validates one pool file; errors name the file and the field. */
export function loadPoolFile(file: string): FragmentPool {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read pool file ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`pool file ${file} is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = PoolFileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`pool file ${file} is invalid:\n${formatIssues(parsed.error.issues)}`);
  return { ...parsed.data, file, sha256: createHash("sha256").update(text).digest("hex") };
}

/** The built-in pools (sorted by file name) and then the user's, in the order given; names must be unique. */
export function loadPools(extraFiles: readonly string[] = [], builtinDir = BUILTIN_POOL_DIR): FragmentPool[] {
  const builtin = readdirSync(builtinDir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => join(builtinDir, name));
  const pools = [...builtin, ...extraFiles].map(loadPoolFile);
  const seen = new Map<string, string>();
  for (const pool of pools) {
    const earlier = seen.get(pool.name);
    if (earlier !== undefined)
      throw new ConfigError(`pool file ${pool.file}: name "${pool.name}" is already used by ${earlier}; give the pool another name`);
    seen.set(pool.name, pool.file);
  }
  return pools;
}

export function hasTag(pool: PoolFile, tag: PoolTag): boolean {
  return pool.tags.includes(tag);
}

/**
 * Whether a pool can give a fragment in this type's conversations in this language. Pools that
 * read the lexicon or the user's message always can; a file's pool only where it has fragments.
 */
export function poolServes(pool: PoolFile, type: AdversarialType, language: Language): boolean {
  if (pool.source !== "fragments") return true;
  if (pool.byType !== undefined) return (pool.byType[type]?.[language]?.length ?? 0) > 0;
  return (pool.fragments?.[language]?.length ?? 0) > 0;
}

const lexiconFragmentCache = new Map<Language, string[]>();

/** Every distinct phrasing and example of the lexicon, in file order (read when first asked). */
export function lexiconFragments(language: Language): string[] {
  let fragments = lexiconFragmentCache.get(language);
  if (fragments === undefined) {
    const lexicon = loadLexicon(language);
    fragments = [...new Set([...Object.values(lexicon.phrasings).flat(), ...Object.values(lexicon.examples)])];
    lexiconFragmentCache.set(language, fragments);
  }
  return fragments;
}

const MAX_QUOTE_WORDS = 14;

/** The clauses of a message, each quoted (and clipped), in order. */
export function quotedClauses(text: string, language: Language): string[] {
  const separators = language === "zh" ? /[。！？；，\n]+/u : /[.!?;\n]+|,\s+(?:and|but)\s+/u;
  return text
    .split(separators)
    .map((clause) => clause.trim().replace(/^["“'‘]+|["”'’]+$/gu, ""))
    .filter((clause) => clause.length > 0)
    .map((clause) => {
      if (language === "zh") return `“${[...clause].slice(0, 30).join("")}”`;
      const words = clause.split(/\s+/u);
      return `“${words.length > MAX_QUOTE_WORDS ? `${words.slice(0, MAX_QUOTE_WORDS).join(" ")}...` : clause}”`;
    });
}

/** What a fragment is drawn from: the type and language of the conversation, and the user's last message. */
export interface FragmentContext {
  type: AdversarialType;
  language: Language;
  userText: string;
}

/** The fragments a pool offers in this context (the user's pools read the message; may be empty). */
export function fragmentsOf(pool: PoolFile, context: FragmentContext): readonly string[] {
  switch (pool.source) {
    case "lexicon":
      return lexiconFragments(context.language);
    case "user-quote":
      return quotedClauses(context.userText, context.language);
    case "user-words":
      return [...new Set(surfaceContentWords(context.userText, loadLexicon(context.language)))];
    case "fragments":
      return (pool.byType !== undefined ? pool.byType[context.type]?.[context.language] : pool.fragments?.[context.language]) ?? [];
  }
}
