/**
 * Figures quoted in docs/, computed rather than copied, so they cannot go stale: the gaming agents'
 * FS table of docs/offline-user.md. `npm run docs:tables` rewrites the figures in place and
 * test/gaming-agents.test.ts fails when the committed ones differ from what the code gives.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GAMING_AGENT_IDS } from "../agents/gaming-agents.js";
import { runBenchmark } from "./run-benchmark.js";
import { parseRunConfig } from "./run-config.js";

/** The seed the table is computed at (it says so in its header). */
export const GAMING_TABLE_SEED = 1;

/** FS of attuned and of every gaming agent on the full suite against the offline user, by agent id. */
export async function gamingAgentScores(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "aeb-doc-tables-"));
  try {
    const config = parseRunConfig(
      {
        seed: GAMING_TABLE_SEED,
        judges: { ecs: [], hid: [] },
        conditions: ["attuned", ...GAMING_AGENT_IDS].map((id) => ({ name: id, agent: { kind: "reference", id } })),
      },
      "gaming table",
    );
    const run = await runBenchmark({ config, outDir: join(dir, "run") });
    return Object.fromEntries(run.summary.conditions.map((condition) => [condition.name, condition.fs.mean ?? Number.NaN]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The markdown with each gaming agent's row (`| \`ID\` | ... | FS |`) and the sentence "Attuned
 * scores X on the same run" carrying `scores`, to three decimals; everything else as it was.
 */
export function withGamingScores(markdown: string, scores: Readonly<Record<string, number>>): string {
  const fixed = (value: number | undefined) => (value === undefined ? undefined : value.toFixed(3));
  let text = markdown.replace(
    /^(\| `([a-z-]+)` \|.*\| )(\d\.\d{3})( \|)$/gm,
    (row: string, head: string, id: string, _old: string, tail: string) => {
      const value = fixed(scores[id]);
      return value === undefined || !(GAMING_AGENT_IDS as readonly string[]).includes(id) ? row : `${head}${value}${tail}`;
    },
  );
  const attuned = fixed(scores.attuned);
  if (attuned !== undefined) text = text.replace(/Attuned scores \d\.\d{3} on the same run/, `Attuned scores ${attuned} on the same run`);
  return text;
}
