import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { runEpisode } from "../episode/step.js";
import { writeReportFiles } from "../report/write-reports.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { forEachConcurrent } from "./concurrency.js";
import { createAgent, createSimulatedUser } from "./plugins.js";
import type { RunConfig } from "./run-config.js";
import { claimRunDirectory, DialogueRecorder, hashOf, SUMMARY_FILE } from "./run-directory.js";
import { planRun } from "./run-plan.js";
import { summariseRun, type RunSummary } from "./summary.js";

export interface RunEvents {
  /** Called once the plan is known: how many dialogues in all, how many were already finished. */
  onPlan?(info: { total: number; alreadyFinished: number; toRun: number; resumed: boolean; repaired: DialogueRecorder["repaired"] }): void;
  onDialogue?(record: DialogueRecord): void;
}

export interface RunOptions {
  config: RunConfig;
  outDir: string;
  force?: boolean;
  events?: RunEvents;
  signal?: AbortSignal;
}

export interface RunResult {
  summary: RunSummary;
  ran: number;
  skipped: number;
  errors: number;
  outDir: string;
}

/** The scenarios a config selects (built-in suite `full` by default). */
export function selectScenarios(config: RunConfig): Scenario[] {
  const selection = config.scenarios;
  const all = loadScenarioDirectory(selection.path ?? BUILTIN_SCENARIO_DIR);
  const suite = selection.suite ?? (selection.path === undefined ? defaultSuite(all) : undefined);
  return filterScenarios(all, { types: selection.types, suite, ids: selection.ids });
}

/** `full` when the built-in suites have it, else `starter`. */
function defaultSuite(scenarios: readonly Scenario[]): string {
  return scenarios.some((scenario) => scenario.suite === "full") ? "full" : "starter";
}

/** What decides the results, hashed into the manifest: not concurrency or paths to output. */
export function resultDefiningConfig(config: RunConfig, scenarios: readonly Scenario[]): unknown {
  return {
    seed: config.seed,
    repeats: config.repeats,
    simulator: config.simulator,
    conditions: config.conditions,
    scenarios: scenarios.map((scenario) => scenario.id),
    scenarioContent: hashOf(scenarios),
  };
}

/**
 * Runs conditions x scenarios x repeats into `outDir`, resuming what is there: finished dialogues
 * are kept, errored and missing ones are run. Every dialogue is appended to dialogues.jsonl as it
 * finishes; summary.json and report.md are written from the records at the end.
 */
export async function runBenchmark(options: RunOptions): Promise<RunResult> {
  const { config, outDir } = options;
  const scenarios = selectScenarios(config);
  const defining = resultDefiningConfig(config, scenarios);
  const { resumed } = claimRunDirectory(outDir, { format: 1, configHash: hashOf(defining), config: defining }, options.force ?? false);
  const recorder = new DialogueRecorder(outDir);
  const tasks = planRun(config.conditions, scenarios, config.repeats, config.seed);
  const planned = new Set(tasks.map((task) => task.id));
  const todo = tasks.filter((task) => !recorder.finished.has(task.id));
  options.events?.onPlan?.({
    total: tasks.length,
    alreadyFinished: tasks.length - todo.length,
    toRun: todo.length,
    resumed,
    repaired: recorder.repaired,
  });

  const user = createSimulatedUser(config.simulator);
  const agents = new Map(config.conditions.map((condition) => [condition.name, createAgent(condition.agent)]));
  const errored: DialogueRecord[] = [];
  try {
    await forEachConcurrent(
      todo,
      config.concurrency,
      async (task) => {
        const record = await runEpisode({
          dialogueId: task.id,
          condition: task.condition.name,
          scenario: task.scenario,
          preset: task.preset,
          repeat: task.repeat,
          seed: task.seed,
          agent: agents.get(task.condition.name)!,
          user,
          signal: options.signal,
        });
        if (record.status === "error") errored.push(record);
        recorder.append(record);
        options.events?.onDialogue?.(record);
      },
      options.signal,
    );
  } finally {
    recorder.close();
  }

  const records = [...recorder.finished.values(), ...errored].filter((record) => planned.has(record.id));
  const summary = await writeSummary(outDir, records, config);
  return { summary, ran: todo.length, skipped: tasks.length - todo.length, errors: errored.length, outDir };
}

/** Writes summary.json, then report.md and report.html (both from the records alone). */
export async function writeSummary(
  outDir: string,
  records: readonly DialogueRecord[],
  config: Pick<RunConfig, "conditions" | "seed" | "repeats"> & Partial<Pick<RunConfig, "simulator">>,
): Promise<RunSummary> {
  const summary = summariseRun(records, { conditionOrder: config.conditions.map((condition) => condition.name), seed: config.seed, repeats: config.repeats });
  writeFileSync(join(outDir, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  await writeReportFiles(outDir, { summary, records, setup: { conditions: config.conditions, simulator: config.simulator } });
  return summary;
}
