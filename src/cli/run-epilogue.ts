/**
 * What `aeb run` says last: the tokens each model role used (and their cost, when the config gives
 * prices per million tokens), then where the report is and the command that browses the run; and
 * the judge calls that failed, which `aeb run` and `aeb judge` both count. Pure functions of
 * summary.json and the config, so a test can read them.
 */
import type { RunSummary, UsageEntry } from "../analysis/summary-schema.js";
import type { RunConfig } from "../runner/run-config.js";

const number = (value: number) => value.toLocaleString("en-US");

/** The cost of one role's tokens at the model's price, or undefined without a price. */
function costOf(entry: UsageEntry, prices: RunConfig["prices"]): number | undefined {
  const price = prices?.[entry.model];
  if (price === undefined) return undefined;
  return (entry.promptTokens * price.promptPerMillion + entry.completionTokens * price.completionPerMillion) / 1_000_000;
}

/** One line per role with tokens (none for an offline run), and the total cost when every model has a price. */
export function usageLines(usage: readonly UsageEntry[] | undefined, prices: RunConfig["prices"]): string[] {
  if (usage === undefined || usage.length === 0) return ["usage: no model was called (offline agents, user and judges)"];
  const lines = ["usage (every invocation on this directory; cached calls cost no tokens):"];
  let total = 0;
  let priced = 0;
  for (const entry of usage) {
    const cost = costOf(entry, prices);
    if (cost !== undefined) {
      total += cost;
      priced += 1;
    }
    lines.push(
      `  ${entry.role} (${entry.model}): ${number(entry.calls)} call(s)${entry.cachedCalls > 0 ? ` + ${number(entry.cachedCalls)} cached` : ""}, ${number(entry.promptTokens)} prompt + ${number(entry.completionTokens)} completion tokens${cost === undefined ? "" : `, cost ${cost.toFixed(2)}`}`,
    );
  }
  if (priced === usage.length) lines.push(`  cost in all: ${total.toFixed(2)} (config prices per million tokens)`);
  else if (priced === 0) lines.push("  (set prices: { MODEL: { promptPerMillion, completionPerMillion } } in the config for a cost)");
  else lines.push(`  cost of the priced roles: ${total.toFixed(2)}; ${usage.length - priced} role(s) have no price in the config`);
  return lines;
}

/** Where to look next. */
export function nextStepLines(outDir: string): string[] {
  return [`report: ${outDir}/report.html (and report.md)`, `browse every dialogue: aeb view ${outDir}`];
}

/** Turns and verdicts the run's judges could not produce (each is retried by a rerun). */
export function judgeFailureCount(summary: RunSummary): number {
  let count = 0;
  for (const condition of summary.conditions) {
    for (const judge of Object.values(condition.ecsByJudge)) count += judge.judgeErrors;
    for (const judge of Object.values(condition.hidByJudge)) count += judge.judgeErrors;
  }
  return count;
}
