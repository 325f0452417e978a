import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { Language } from "../lexicon/lexicon.js";

const ChecksSchema = z.strictObject({
  outOfCharacter: z.record(z.enum(["en", "zh"]), z.array(z.string()).min(1)),
  counselling: z.record(z.enum(["en", "zh"]), z.array(z.string()).min(1)),
});

/**
 * Flags simulator replies where the model playing the user drops the persona, refuses the role,
 * or starts counselling the agent: adversarial personas are often softened by the model playing
 * them, and such turns should be visible in the results.
 */
export function personaFlags(reply: string, language: Language): string[] {
  const patterns = compiledChecks(loadDataFile(dataPath("simulator-checks.yaml"), ChecksSchema), language);
  const flags: string[] = [];
  if (patterns.outOfCharacter.some((pattern) => pattern.test(reply))) flags.push("out_of_character");
  if (patterns.counselling.some((pattern) => pattern.test(reply))) flags.push("counsels_agent");
  return flags;
}

type Checks = z.infer<typeof ChecksSchema>;
interface CompiledChecks {
  outOfCharacter: RegExp[];
  counselling: RegExp[];
}

/** The patterns compiled once per loaded file and language: every simulator reply is checked (two per turn). No `g` flag, so a pattern keeps no state between tests. */
const compiled = new WeakMap<Checks, Map<Language, CompiledChecks>>();

function compiledChecks(checks: Checks, language: Language): CompiledChecks {
  let byLanguage = compiled.get(checks);
  if (byLanguage === undefined) {
    byLanguage = new Map();
    compiled.set(checks, byLanguage);
  }
  let patterns = byLanguage.get(language);
  if (patterns === undefined) {
    const compile = (sources: string[] | undefined) => (sources ?? []).map((source) => new RegExp(source, "iu"));
    patterns = { outOfCharacter: compile(checks.outOfCharacter[language]), counselling: compile(checks.counselling[language]) };
    byLanguage.set(language, patterns);
  }
  return patterns;
}
