/**
 * Interns the short strings that every dialogue of a run repeats (its condition, scenario, type,
 * preset, end reason, judge ids): JSON.parse makes a fresh copy of each value on every line, so
 * 100,000 rows held about a third of their memory in copies of a few dozen distinct strings.
 */
export class StringPool {
  readonly #strings = new Map<string, string>();

  get(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    this.#strings.set(value, value);
    return value;
  }
}
