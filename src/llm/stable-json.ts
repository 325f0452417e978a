/**
 * Deterministic JSON serialisation for hashing.
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
