import {
  loadValidityCorpus,
  QUALITY_RANK,
  REPLY_QUALITIES,
  ValidityCorpusAgent,
  validityPart,
  type ReplyQuality,
  type ValidityPart,
} from "../agents/validity-corpus-agent.js";
import { getPreset } from "../core/preset.js";
import { runEpisode } from "../episode/step.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { spearman } from "../stats/spearman.js";

/** How a simulated user scored one part of the positive-validity corpus. */
export interface ValidityFigures {
  files: number;
  /** Spearman's rho between the replies' quality rank and their dialogues' FS. */
  rho: number;
  /** Mean FS of each quality's dialogues. */
  means: Record<ReplyQuality, number>;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Plays one part of the positive-validity corpus (data/validity-corpus/; the parts are
 * VALIDITY_PARTS) against a simulated user: each file's replies of each quality through the
 * episode loop under the scenario's preset, seed 1, and what the user's FS says of the qualities
 * (test/validity-corpus.test.ts pins it, bench/validity.ts measures it over training seeds).
 */
export async function playValidityCorpus(user: SimulatedUser, part: ValidityPart): Promise<ValidityFigures> {
  const scenarios = new Map(loadScenarioDirectory(BUILTIN_SCENARIO_DIR).map((scenario) => [scenario.id, scenario]));
  const files = loadValidityCorpus().filter((file) => validityPart(file) === part);
  const quality: number[] = [];
  const fs: number[] = [];
  const byQuality = new Map<ReplyQuality, number[]>(REPLY_QUALITIES.map((name) => [name, []]));
  for (const file of files) {
    const scenario = scenarios.get(file.scenario);
    if (scenario === undefined) throw new Error(`data/validity-corpus/${file.scenario}.yaml names no built-in scenario`);
    for (const name of REPLY_QUALITIES) {
      const record = await runEpisode({
        dialogueId: `${file.scenario}/${name}`,
        condition: name,
        scenario,
        preset: getPreset(scenario.preset),
        repeat: 0,
        seed: 1,
        agent: new ValidityCorpusAgent(file, name),
        user,
      });
      if (record.status === "error") throw new Error(`${record.id} ended in error: ${record.error?.message ?? "unknown"}`);
      quality.push(QUALITY_RANK[name]);
      fs.push(record.final.fs);
      byQuality.get(name)!.push(record.final.fs);
    }
  }
  return {
    files: files.length,
    rho: spearman(quality, fs).rho,
    means: Object.fromEntries([...byQuality].map(([name, values]) => [name, mean(values)])) as Record<ReplyQuality, number>,
  };
}
