import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { detectLanguage } from "../lexicon/lexicon.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { loadScenarioSource } from "../scenarios/scenario-source.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { forEachConcurrent } from "./concurrency.js";
import { configWarnings, PluginFactory } from "./plugins.js";
import { judgeRecord, writeSummary } from "./run-benchmark.js";
import type { RunConfig } from "./run-config.js";
import { appendJudgement, readRunRecords } from "./judgements.js";
import { DIALOGUES_FILE, MANIFEST_FILE } from "./run-directory.js";
import type { RunSummary } from "./summary.js";

export interface JudgeRunOptions {
  dir: string;
  /** Its `judges` and `cache` are used; its conditions and scenarios only to find hidden intentions. */
  config: RunConfig;
  concurrency: number;
  rejudge: boolean;
  onWarning?: (message: string) => void;
  env?: Readonly<Record<string, string | undefined>>;
}

interface ManifestConfig {
  seed?: number;
  repeats?: number;
  conditions?: Array<{ name: string; agent?: unknown }>;
  simulator?: unknown;
}

/** Scenarios that may have produced the run, by id: the built-in suites and the config's own path. */
function scenarioIndex(config: RunConfig): Map<string, Scenario> {
  const index = new Map<string, Scenario>();
  for (const scenario of loadScenarioDirectory(BUILTIN_SCENARIO_DIR)) index.set(scenario.id, scenario);
  if (config.scenarios.path !== undefined) for (const scenario of loadScenarioSource(config.scenarios.path, { skipInvalid: true }).scenarios) index.set(scenario.id, scenario);
  return index;
}

/**
 * Judges a finished run afresh, without touching its dialogues: results are appended to
 * judgements.jsonl (one line per dialogue), so a judge can be added, compared with another by
 * name, or rerun after a crash (dialogues already judged by every configured judge are skipped).
 */
export async function judgeRun(options: JudgeRunOptions): Promise<{ summary: RunSummary; judged: number; skipped: number; excluded: number; excludedReason: string }> {
  const { dir, config } = options;
  if (!existsSync(join(dir, DIALOGUES_FILE))) throw new RunDirectoryError(`${dir} has no ${DIALOGUES_FILE}: is it a run directory?`);
  const manifest = existsSync(join(dir, MANIFEST_FILE)) ? (JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as { config?: ManifestConfig }).config ?? {} : {};
  const plugins = new PluginFactory({ cacheDir: config.cache?.dir, env: options.env, warn: options.onWarning });
  const judges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };
  for (const warning of configWarnings(config)) options.onWarning?.(warning);
  if (judges.ecs.length + judges.hid.length === 0) throw new RunDirectoryError("the config names no judge (judges.ecs / judges.hid)");

  const { records, tornTail } = readRunRecords(dir);
  if (tornTail) options.onWarning?.(`${DIALOGUES_FILE} ends with a torn line (an interrupted run); it is ignored`);
  const scenarios = scenarioIndex(config);
  const reasons = new Map<string, number>();
  const note = (reason: string) => reasons.set(reason, (reasons.get(reason) ?? 0) + 1);

  const todo: Array<{ record: DialogueRecord; ecs: typeof judges.ecs; hid: typeof judges.hid; scenario: Pick<Scenario, "language" | "hiddenIntention"> }> = [];
  let skipped = 0;
  for (const record of records) {
    if (record.status !== "done") {
      note("ended in error");
      continue;
    }
    const scenario = scenarios.get(record.scenarioId);
    const ecs = judges.ecs.filter(({ name }) => options.rejudge || record.ecs?.[name] === undefined);
    let hid = judges.hid.filter(({ name }) => options.rejudge || record.hid?.[name] === undefined);
    if (scenario === undefined && hid.length > 0) {
      note("scenario unknown, so no hidden intention for the HID judge");
      hid = [];
    }
    if (ecs.length + hid.length === 0) {
      skipped += 1;
      continue;
    }
    const language = scenario?.language ?? detectLanguage(record.opening.text);
    todo.push({ record, ecs, hid, scenario: scenario ?? { language, hiddenIntention: { text: "", moves: ["grounded"] } } });
  }

  await forEachConcurrent(
    todo,
    options.concurrency,
    async ({ record, ecs, hid, scenario }) => {
      const judged = await judgeRecord({ ...record, ecs: undefined, hid: undefined }, scenario, { ecs, hid }, plugins.abort.signal);
      if (plugins.abort.signal.aborted) return;
      appendJudgement(dir, { id: record.id, ...(judged.ecs ? { ecs: judged.ecs } : {}), ...(judged.hid ? { hid: judged.hid } : {}) });
    },
    plugins.abort.signal,
  );
  if (plugins.fatal !== undefined) throw plugins.fatal;

  const merged = readRunRecords(dir).records;
  const order = manifest.conditions?.map((condition) => condition.name) ?? [...new Set(merged.map((record) => record.condition))];
  const summary = await writeSummary(dir, merged, {
    conditions: manifest.conditions ?? order.map((name) => ({ name })),
    seed: manifest.seed ?? 1,
    repeats: manifest.repeats ?? 1,
    judges: config.judges,
    simulator: manifest.simulator,
  });
  const excluded = [...reasons.values()].reduce((sum, count) => sum + count, 0);
  return { summary, judged: todo.length, skipped, excluded, excludedReason: [...reasons].map(([reason, count]) => `${count} ${reason}`).join("; ") };
}
