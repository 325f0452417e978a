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
  const checks = loadDataFile(dataPath("simulator-checks.yaml"), ChecksSchema);
  const matches = (patterns: string[] | undefined) => (patterns ?? []).some((source) => new RegExp(source, "iu").test(reply));
  const flags: string[] = [];
  if (matches(checks.outOfCharacter[language])) flags.push("out_of_character");
  if (matches(checks.counselling[language])) flags.push("counsels_agent");
  return flags;
}
