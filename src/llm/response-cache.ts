/**
 * Optional on-disk cache of model replies.
 *
 * Why: benchmark runs are long and get interrupted; re-running a study, or
 * re-scoring it with a new judge, must not pay again for completions already
 * obtained. A cache hit sends no request at all.
 *
 * Key = sha256 of the stable JSON of: key-format version, the config's FIRST
 * base URL (credentials and query stripped), model, messages, effective
 * sampling parameters (temperature, topP, maxTokens, seed, stop), structured
 * output mode and JSON schema, extraBody, and the caller's sampleKey.
 * - The first base URL, not the replica that happened to answer: replicas of
 *   one model are interchangeable, so a reply is reusable whichever served
 *   it. The first URL rather than the sorted list so that appending replicas
 *   to scale a resumed run keeps the cache warm; reordering the list (putting
 *   a different server first) is treated as a different deployment.
 * - Timeouts, retries and concurrency are excluded: they change how a reply
 *   is obtained, not which reply it is.
 * - sampleKey separates intentionally repeated samples of the same prompt.
 *
 * Storage: one JSON file per entry under `<dir>/<first two hex chars>/<key>.json`
 * (sharded so no directory grows huge), written to a unique temp file then
 * renamed, so a crash or a concurrent writer never leaves a half-written entry
 * under the final name. Errors and empty replies are never stored. An
 * unreadable or corrupt entry is treated as a miss and overwritten by the next
 * successful reply; the first one is reported through `warn`, later ones are
 * only counted, so a damaged cache cannot flood the log.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { ChatMessage } from "./chat-model.js";
import { stableStringify } from "../core/stable-json.js";

/** Bumped when the key recipe or entry format changes, invalidating old entries. */
export const RESPONSE_CACHE_FORMAT = 1;

/** Everything that identifies a reply. */
export interface ResponseCacheKeyParts {
  /** The config's first base URL, already stripped of credentials. */
  baseUrl: string;
  model: string;
  messages: readonly ChatMessage[];
  /** Effective sampling and request-shaping parameters. */
  params: Record<string, unknown>;
  jsonSchema?: { name: string; schema: Record<string, unknown> } | undefined;
  sampleKey: string;
}

/** sha256 (hex) of the stable JSON of the key parts. */
export function responseCacheKey(parts: ResponseCacheKeyParts): string {
  const payload = stableStringify({ format: RESPONSE_CACHE_FORMAT, ...parts });
  return createHash("sha256").update(payload).digest("hex");
}

const CachedCompletionSchema = z.object({
  text: z.string().min(1),
  reasoning: z.string().optional(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
  finishReason: z.string().nullable(),
  endpoint: z.string(),
  model: z.string(),
});

/** What is stored for a reply. */
export type CachedCompletion = z.infer<typeof CachedCompletionSchema>;

const EntrySchema = z.object({
  format: z.literal(RESPONSE_CACHE_FORMAT),
  key: z.string(),
  createdAt: z.string(),
  response: CachedCompletionSchema,
});

export interface ResponseCacheOptions {
  /** Cache directory; created on first write. */
  dir: string;
  /** Where the one-time corruption / write-failure notices go (default console.warn). */
  warn?: (message: string) => void;
}

/** File-per-entry response cache. Safe to share between processes. */
export class ResponseCache {
  readonly dir: string;
  readonly #warn: (message: string) => void;
  #corruptEntries = 0;
  #writeFailures = 0;

  constructor(options: ResponseCacheOptions) {
    this.dir = options.dir;
    this.#warn = options.warn ?? ((message) => console.warn(message));
  }

  /** Corrupt entries met so far (each treated as a miss). */
  get corruptEntries(): number {
    return this.#corruptEntries;
  }

  /** Entries that could not be written (the reply was still returned). */
  get writeFailures(): number {
    return this.#writeFailures;
  }

  /** Path of the entry file for `key`. */
  pathFor(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new RangeError("cache key must be a sha256 hex digest");
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The stored reply, or undefined on a miss (including a corrupt entry). */
  async get(key: string): Promise<CachedCompletion | undefined> {
    const path = this.pathFor(key);
    let raw: string;
    try {
      raw = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      this.#reportCorrupt(path, (error as Error).message);
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.#reportCorrupt(path, "not valid JSON");
      return undefined;
    }
    const entry = EntrySchema.safeParse(parsed);
    if (!entry.success) {
      this.#reportCorrupt(path, "unexpected entry format");
      return undefined;
    }
    if (entry.data.key !== key) {
      this.#reportCorrupt(path, "entry belongs to another key");
      return undefined;
    }
    return entry.data.response;
  }

  /**
   * Stores a reply atomically. Returns false (and stores nothing) for an empty
   * reply. A failed write is reported once and swallowed: losing a cache entry
   * must never fail a call that already succeeded.
   */
  async set(key: string, response: CachedCompletion): Promise<boolean> {
    if (response.text.trim() === "") return false;
    const path = this.pathFor(key);
    const entry = { format: RESPONSE_CACHE_FORMAT, key, createdAt: new Date().toISOString(), response };
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
      await writeFile(temp, `${JSON.stringify(entry)}\n`, { encoding: "utf8", flag: "wx" });
      await rename(temp, path);
      return true;
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      this.#writeFailures++;
      if (this.#writeFailures === 1) {
        this.#warn(
          `response cache: could not write ${path} (${(error as Error).message}); ` +
            "replies are still returned, further write failures are counted silently",
        );
      }
      return false;
    }
  }

  #reportCorrupt(path: string, reason: string): void {
    this.#corruptEntries++;
    if (this.#corruptEntries === 1) {
      this.#warn(
        `response cache: ignoring corrupt entry ${path} (${reason}); it will be refetched. ` +
          "Further corrupt entries are counted silently (see ResponseCache.corruptEntries).",
      );
    }
  }
}

/** Opens (lazily creates) a response cache in `dir`. */
export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  return new ResponseCache(options);
}
