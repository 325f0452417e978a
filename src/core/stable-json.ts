import { createHash } from "node:crypto";

/**
 * Deterministic JSON serialisation for hashing: the one stable stringify of AEB (cache keys, run
 * guards, content hashes).
 *
 * Why: `JSON.stringify` keeps insertion order, so `{a, b}` and `{b, a}`
 * would hash differently and a harmless refactor of how a request object is
 * built would silently invalidate every cache entry. Keys are sorted
 * recursively; `undefined` members are dropped as JSON.stringify does, so an
 * unset option and an absent one hash the same.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : normalise(item)));
  if (value !== null && typeof value === "object") {
    const source = value as Record<string, unknown>;
    if (typeof (source as { toJSON?: unknown }).toJSON === "function") {
      return normalise((source as { toJSON: () => unknown }).toJSON());
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort()) {
      const member = source[key];
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      out[key] = normalise(member);
    }
    return out;
  }
  return value;
}

/**
 * A short content hash (sha256 of the stable JSON, 16 hex digits): the same value, however its
 * objects were built, gives the same hash. Used to guard run directories and key caches.
 */
export function stableHash(value: unknown): string {
  // JSON has no `undefined`: hash it as a value of its own, distinct from null.
  return createHash("sha256")
    .update(value === undefined ? "\u0000undefined" : stableStringify(value))
    .digest("hex")
    .slice(0, 16);
}
