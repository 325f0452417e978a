/**
 * A bounded memo for pure functions of a text: an episode looks at the same replies and user
 * messages again every turn (repetition, near-repeats, grounding), so their word sets are computed
 * once. The cache is cleared when it reaches `limit` entries, which keeps memory flat on long runs.
 */
export function memoByText<T>(compute: (text: string) => T, limit = 4096): (text: string) => T {
  const cache = new Map<string, T>();
  return (text: string): T => {
    const cached = cache.get(text);
    if (cached !== undefined) return cached;
    if (cache.size >= limit) cache.clear();
    const value = compute(text);
    cache.set(text, value);
    return value;
  };
}
