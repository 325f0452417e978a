/**
 * A screen over many regular expressions: does any of them match a text? Used where only that is
 * asked (the recogniser's lexicon features) or asked first (injections, where most replies match
 * none), one scan per set of flags instead of one per pattern.
 */

/**
 * One alternation per set of flags: it matches somewhere exactly when one of its patterns does
 * (each alternative is tried at every position). A group with a backreference (whose number the
 * alternation would shift) or whose alternation does not compile (two patterns naming the same
 * group) is screened pattern by pattern.
 */
export function screenOf(patterns: readonly RegExp[]): (text: string) => boolean {
  const byFlags = new Map<string, RegExp[]>();
  for (const pattern of patterns) {
    // Without g or y: `test` must not depend on a lastIndex left by an earlier call.
    const flags = pattern.flags.replace(/[gy]/g, "");
    byFlags.set(flags, [...(byFlags.get(flags) ?? []), pattern]);
  }
  const screens: RegExp[] = [];
  for (const [flags, group] of byFlags) {
    if (group.some((pattern) => /\\[1-9k]/.test(pattern.source))) {
      screens.push(...group.map((pattern) => new RegExp(pattern.source, flags)));
      continue;
    }
    try {
      screens.push(new RegExp(group.map((pattern) => `(?:${pattern.source})`).join("|"), flags));
    } catch {
      screens.push(...group.map((pattern) => new RegExp(pattern.source, flags)));
    }
  }
  return (text) => screens.some((screen) => screen.test(text));
}
