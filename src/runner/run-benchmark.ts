import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { setMaxListeners } from "node:events";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { runEpisode } from "../episode/step.js";
import type { EcsJudge, HidJudge } from "../judges/judge.js";
import { judgeEcs, judgeHid } from "../judges/judge-dialogue.js";
import type { ModelCallEvent, UsageTotals } from "../llm/chat-model.js";
import { dialogueRow, type DialogueRow } from "../metrics/dialogue-row.js";
import { loadReplyTokenizer, type ReplyTokenizer } from "../metrics/reply-tokenizer.js";
import { filterScenarios } from "../scenarios/load-scenarios.js";
import type { SkippedProfileLine } from "../scenarios/sage-profiles.js";
import { loadScenarioSource } from "../scenarios/scenario-source.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { forEachConcurrent } from "./concurrency.js";
import { mergeJudgementRows, readJudgements } from "./judgements.js";
import { configWarnings, PluginFactory } from "./plugins.js";
import type { RunConfig } from "./run-config.js";
import { claimRunDirectory, DialogueRecorder, hashOf } from "./run-directory.js";
import { planRun } from "./run-plan.js";
import { writeRunSummary, type RunSummary, type SummaryConfig } from "./summary.js";

export const USAGE_FILE = "usage.json";

export interface RunEvents {
  /** Called once the plan is known: how many dialogues in all, how many were already finished. */
  onPlan?(info: { total: number; alreadyFinished: number; toRun: number; resumed: boolean; repaired: DialogueRecorder["repaired"] }): void;
  onDialogue?(record: DialogueRecord): void;
  onWarning?(message: string): void;
  /** Profile lines left out under `scenarios.skipInvalid` (sage:/rlver: paths), before the plan. */
  onSkippedProfileLines?(lines: SkippedProfileLine[]): void;
  /**
   * Instrumentation: every finished model call with its client-observed latency (the dialogue is
   * the sampleKey up to its first '#'). Benchmarks use it; it must not throw.
   */
  onModelCall?(event: ModelCallEvent): void;
}

export interface RunOptions {
  config: RunConfig;
  outDir: string;
  force?: boolean;
  events?: RunEvents;
  signal?: AbortSignal;
  /** Where API keys are looked up (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface RunResult {
  summary: RunSummary;
  ran: number;
  skipped: number;
  errors: number;
  outDir: string;
}

/**
 * The scenarios a config selects (built-in suite `full` by default). A `sage:PATH` or `rlver:PATH`
 * path loads a SAGE/RLVER profile file as the cooperative suite; with `skipInvalid` its invalid
 * lines are skipped and handed to `report.onSkipped` (the caller lists them).
 */
export function selectScenarios(config: RunConfig, report: { onSkipped?(lines: SkippedProfileLine[]): void } = {}): Scenario[] {
  const selection = config.scenarios;
  const { scenarios: all, skipped } = loadScenarioSource(selection.path, { skipInvalid: selection.skipInvalid });
  if (skipped.length > 0) report.onSkipped?.(skipped);
  const suite = selection.suite ?? (selection.path === undefined ? defaultSuite(all) : undefined);
  return filterScenarios(all, { types: selection.types, suite, ids: selection.ids });
}

/** `full` when the built-in suites have it, else `starter`. */
function defaultSuite(scenarios: readonly Scenario[]): string {
  return scenarios.some((scenario) => scenario.suite === "full") ? "full" : "starter";
}

/** What decides the results, hashed into the manifest: not concurrency, caches or output paths. */
export function resultDefiningConfig(config: RunConfig, scenarios: readonly Scenario[], tokenizer?: ReplyTokenizer): unknown {
  return {
    // The vocabulary, not the path: the same tokenizer.json elsewhere gives the same counts.
    ...(tokenizer !== undefined ? { tokenizer: { name: tokenizer.name, sha256: tokenizer.sha256 } } : {}),
    seed: config.seed,
    repeats: config.repeats,
    simulator: config.simulator,
    conditions: config.conditions,
    judges: config.judges,
    scenarios: scenarios.map((scenario) => scenario.id),
    scenarioContent: hashOf(scenarios),
  };
}

/** The record with each visible agent reply's token count (spec section 4: reply length). */
export function withReplyTokens(record: DialogueRecord, tokenizer: ReplyTokenizer): DialogueRecord {
  return { ...record, turns: record.turns.map((turn) => ({ ...turn, agent: { ...turn.agent, tokens: tokenizer.count(turn.agent.text) } })) };
}

/** Judges one finished dialogue with every configured judge (judge failures are per turn, never the dialogue's). */
export async function judgeRecord(
  record: DialogueRecord,
  scenario: Pick<Scenario, "language" | "hiddenIntention">,
  judges: { ecs: ReadonlyArray<{ name: string; judge: EcsJudge }>; hid: ReadonlyArray<{ name: string; judge: HidJudge }> },
  signal?: AbortSignal,
): Promise<DialogueRecord> {
  if (record.status !== "done" || (judges.ecs.length === 0 && judges.hid.length === 0)) return record;
  const ecs: NonNullable<DialogueRecord["ecs"]> = { ...(record.ecs ?? {}) };
  for (const { name, judge } of judges.ecs) ecs[name] = await judgeEcs(record, judge, scenario.language, signal);
  const hid: NonNullable<DialogueRecord["hid"]> = { ...(record.hid ?? {}) };
  for (const { name, judge } of judges.hid) hid[name] = await judgeHid(record, judge, scenario.hiddenIntention.text, scenario.language, signal);
  return { ...record, ...(judges.ecs.length > 0 ? { ecs } : {}), ...(judges.hid.length > 0 ? { hid } : {}) };
}

/**
 * Runs conditions x scenarios x repeats into `outDir`, resuming what is there: finished dialogues
 * are kept, errored and missing ones are run. Every dialogue is appended to dialogues.jsonl as it
 * finishes; summary.json, report.md and report.html are written at the end from one compact row
 * per dialogue (metrics/dialogue-row.ts) and the worst dialogues' records read back from the file,
 * so memory does not grow with the dialogues' text however long the run.
 */
export async function runBenchmark(options: RunOptions): Promise<RunResult> {
  const { config, outDir } = options;
  const scenarios = selectScenarios(config, { onSkipped: options.events?.onSkippedProfileLines });
  const onModelCall = options.events?.onModelCall;
  const plugins = new PluginFactory({ cacheDir: config.cache?.dir, env: options.env, warn: options.events?.onWarning, ...(onModelCall ? { onModelCall } : {}) });
  const user = plugins.simulatedUser(config.simulator, scenarios);
  const agents = new Map(config.conditions.map((condition) => [condition.name, plugins.agent(condition.name, condition.agent)]));
  const judges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };
  for (const warning of configWarnings(config)) options.events?.onWarning?.(warning);

  const tokenizer = config.tokenizer === undefined ? undefined : loadReplyTokenizer(config.tokenizer.path);
  const defining = resultDefiningConfig(config, scenarios, tokenizer);
  const { resumed } = claimRunDirectory(outDir, { format: 1, configHash: hashOf(defining), config: defining }, options.force ?? false);
  const recorder = new DialogueRecorder(outDir);
  const tasks = planRun(config.conditions, scenarios, config.repeats, config.seed);
  const planned = new Set(tasks.map((task) => task.id));
  const todo = tasks.filter((task) => !recorder.finished.has(task.id));
  options.events?.onPlan?.({ total: tasks.length, alreadyFinished: tasks.length - todo.length, toRun: todo.length, resumed, repaired: recorder.repaired });

  // Errored dialogues of this invocation, as compact rows (the records are on disk).
  const errored: DialogueRow[] = [];
  const signal = options.signal === undefined ? plugins.abort.signal : AbortSignal.any([options.signal, plugins.abort.signal]);
  // Every in-flight model call listens on the run's signal: hundreds of listeners are expected.
  setMaxListeners(0, signal);
  try {
    await forEachConcurrent(
      todo,
      config.concurrency,
      async (task) => {
        const played = await runEpisode({
          dialogueId: task.id,
          condition: task.condition.name,
          scenario: task.scenario,
          preset: task.preset,
          repeat: task.repeat,
          seed: task.seed,
          agent: agents.get(task.condition.name)!,
          user,
          signal,
        });
        const record = await judgeRecord(tokenizer === undefined ? played : withReplyTokens(played, tokenizer), task.scenario, judges, signal);
        // A failed preflight or a cancelled run is not the dialogue's fault: record nothing for it.
        if (signal.aborted) return;
        if (record.status === "error") errored.push(dialogueRow(record));
        recorder.append(record);
        options.events?.onDialogue?.(record);
      },
      signal,
    );
  } finally {
    recorder.close();
  }
  if (plugins.fatal !== undefined) throw plugins.fatal;

  const usage = accumulateUsage(outDir, plugins.usage());
  const rows = mergeJudgementRows([...recorder.finished.values(), ...errored].filter((row) => planned.has(row.id)), readJudgements(outDir));
  const summary = await writeRunSummary(outDir, { rows }, config, usage);
  return { summary, ran: todo.length, skipped: tasks.length - todo.length, errors: errored.length, outDir };
}

/** Token usage per model role, added to what earlier invocations on this directory used. */
function accumulateUsage(outDir: string, current: UsageTotals[]): UsageTotals[] | undefined {
  const path = join(outDir, USAGE_FILE);
  const previous: UsageTotals[] = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as UsageTotals[]) : [];
  if (current.length === 0 && previous.length === 0) return undefined;
  const byRole = new Map(previous.map((entry) => [`${entry.role}|${entry.model}`, { ...entry }]));
  for (const entry of current) {
    const key = `${entry.role}|${entry.model}`;
    const total = byRole.get(key);
    if (total === undefined) byRole.set(key, { ...entry });
    else for (const field of ["calls", "cachedCalls", "failedCalls", "requests", "retries", "promptTokens", "completionTokens"] as const) total[field] += entry[field];
  }
  const merged = [...byRole.values()];
  writeFileSync(path, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}

/** Writes summary.json, then report.md and report.html (both from the records alone). */
export async function writeSummary(outDir: string, records: readonly DialogueRecord[], config: SummaryConfig, usage?: UsageTotals[]): Promise<RunSummary> {
  return writeRunSummary(outDir, { records }, config, usage);
}
