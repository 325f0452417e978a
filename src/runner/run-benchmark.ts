import { setMaxListeners } from "node:events";
import type { RunSummary } from "../analysis/summary-schema.js";
import type { Agent } from "../agents/agent.js";
import type { AgentFunction } from "../agents/library-agent.js";
import { describeDialogueError, type DialogueError, type DialogueRecord } from "../core/dialogue.js";
import { ConfigError, RunStoppedError } from "../core/errors.js";
import { runEpisode } from "../episode/step.js";
import type { ModelCallEvent } from "../llm/chat-model.js";
import { loadReplyTokenizer, type ReplyTokenizer } from "../metrics/reply-tokenizer.js";
import { scanDialogues } from "../record/dialogue-reader.js";
import type { RecorderRepair } from "../record/dialogue-recorder.js";
import { RunDirectory } from "../record/run-directory.js";
import { writeRunOutputs } from "./run-outputs.js";
import { FileWriteError } from "../record/write-error.js";
import { filterScenarios } from "../scenarios/load-scenarios.js";
import type { SkippedProfileLine } from "../scenarios/sage-profiles.js";
import { loadScenarioSource } from "../scenarios/scenario-source.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { forEachConcurrent } from "./concurrency.js";
import { judgeDialogue, judgesWithWork, withNewJudgements, type NamedJudges } from "./dialogue-judgements.js";
import { configWarnings, PluginFactory } from "./plugins.js";
import type { RunConfig } from "./run-config.js";
import { plannedDialogueCount, RunPlan } from "./run-plan.js";
import { resultDefinition } from "./result-definition.js";

/** The largest plan a run accepts: a bigger one is almost surely a typo (`--repeats 1000000000`). */
export const MAX_PLANNED_DIALOGUES = 1_000_000;

export interface RunEvents {
  /** Called once the plan is known: how many dialogues in all, how many were already finished. */
  onPlan?(info: {
    total: number;
    alreadyFinished: number;
    toRun: number;
    resumed: boolean;
    repaired: RecorderRepair;
    judgeRetries: number;
    limitedFrom?: number;
  }): void;
  onDialogue?(record: DialogueRecord): void;
  onWarning?(message: string): void;
  /** Something the user should know about the directory (taken over, continued under --force). */
  onNote?(message: string): void;
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
  /** What is running, for run.json and the directory's lock (default `library`; the CLI says `aeb run`). */
  command?: string;
  /**
   * Agents given in code, by condition name: each condition of kind `library` takes its agent from
   * here (a function of the visible conversation, or an object with `reply`). See
   * examples/library-agent.mjs.
   */
  agents?: Readonly<Record<string, Agent | AgentFunction>>;
  /** Play at most this many of the plan's unfinished dialogues now, in plan order (a later run does the rest). */
  limit?: number;
}

export interface RunResult {
  summary: RunSummary;
  /** Dialogues played and recorded by this invocation (finished or errored). */
  ran: number;
  skipped: number;
  errors: number;
  /** Finished dialogues whose failed judge calls were tried again. */
  judgeRetries: number;
  outDir: string;
  /** The caller stopped the run (its signal aborted): the outputs cover what finished; rerun to resume. */
  stopped: boolean;
  /** Dialogues of the plan finished (status `done`) in the directory now, and in the plan. */
  finished: number;
  planned: number;
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
  // Named scenario ids are found in any suite; otherwise the built-in scenarios default to one suite.
  const suite = selection.suite ?? (selection.path === undefined && selection.ids === undefined ? defaultSuite(all) : undefined);
  const selected = filterScenarios(all, { types: selection.types, suite, ids: selection.ids });
  const { preset } = selection;
  return preset === undefined ? selected : selected.map((scenario) => ({ ...scenario, preset }));
}

/** `full` when the built-in suites have it, else `starter`. */
function defaultSuite(scenarios: readonly Scenario[]): string {
  return scenarios.some((scenario) => scenario.suite === "full") ? "full" : "starter";
}

/** The record with each visible agent reply's token count (reply length in tokens). */
export function withReplyTokens(record: DialogueRecord, tokenizer: ReplyTokenizer): DialogueRecord {
  return {
    ...record,
    turns: record.turns.map((turn) => ({ ...turn, agent: { ...turn.agent, tokens: tokenizer.count(turn.agent.text) } })),
  };
}

/** Refuses a plan too large to be meant, before anything is built for it. */
export function checkPlanSize(config: RunConfig, scenarios: number): void {
  const total = plannedDialogueCount(config.conditions.length, scenarios, config.repeats);
  if (total > MAX_PLANNED_DIALOGUES) {
    throw new ConfigError(
      `the plan would make ${total.toLocaleString("en-US")} dialogues (${config.conditions.length} condition(s) x ${scenarios} scenario(s) x ${config.repeats.toLocaleString("en-US")} repeat(s)), more than the ${MAX_PLANNED_DIALOGUES.toLocaleString("en-US")} a run accepts; lower --repeats or select fewer scenarios`,
    );
  }
}

/** Every library condition has its agent, and every agent given has its condition. */
function checkLibraryAgents(config: RunConfig, agents: Readonly<Record<string, unknown>>): void {
  const library = config.conditions.filter((condition) => condition.agent.kind === "library").map((condition) => condition.name);
  const missing = library.filter((name) => agents[name] === undefined);
  if (missing.length > 0)
    throw new ConfigError(
      `condition(s) ${missing.map((name) => `"${name}"`).join(", ")} of kind library have no agent: pass runBenchmark({ config, agents: { ${missing.map((name) => `"${name}": agent`).join(", ")} } })`,
    );
  const stray = Object.keys(agents).filter((name) => !library.includes(name));
  if (stray.length > 0)
    throw new ConfigError(
      `agents given for ${stray.map((name) => `"${name}"`).join(", ")}, but the config has no condition of kind library by that name (add { name, agent: { kind: "library", id } })`,
    );
}

/**
 * Watches the first dialogues of an invocation: when the first `limit` recorded all ended in error
 * with one kind and stage, the failure is systematic (every dialogue would fail alike) and the run
 * is aborted with that cause. One success or a second cause among them ends the watch.
 */
class SystematicFailureWatch {
  readonly abort = new AbortController();
  #seen = 0;
  #first: DialogueError | undefined;
  #over: boolean;
  cause: { count: number; error: DialogueError } | undefined;

  constructor(private readonly limit: number) {
    this.#over = limit === 0;
  }

  observe(record: DialogueRecord): void {
    if (this.#over) return;
    const error = record.status === "error" ? record.error : undefined;
    if (error === undefined || (this.#first !== undefined && (error.kind !== this.#first.kind || error.stage !== this.#first.stage))) {
      this.#over = true;
      return;
    }
    this.#first ??= error;
    this.#seen += 1;
    if (this.#seen < this.limit) return;
    this.#over = true;
    this.cause = { count: this.#seen, error: this.#first };
    this.abort.abort(new RunStoppedError("stopped early on a systematic failure"));
  }
}

/** Finished dialogues of the plan whose judges still have work (failed turns or verdicts), read in one streamed pass. */
function dialoguesToRejudge(directory: RunDirectory, planned: RunPlan, judges: NamedJudges): DialogueRecord[] {
  if (judges.ecs.length + judges.hid.length === 0 || directory.recorder.finished.size === 0) return [];
  const found: DialogueRecord[] = [];
  scanDialogues(directory.dir, (record) => {
    if (record.status !== "done" || !planned.has(record.id)) return;
    const work = judgesWithWork(record, judges);
    if (work.ecs.length + work.hid.length > 0) found.push(record);
  });
  return found;
}

/**
 * Runs conditions x scenarios x repeats into `outDir`, resuming what is there: finished dialogues
 * are kept, errored and missing ones are run, and judge calls that failed are tried again. Every
 * dialogue is appended to dialogues.jsonl as it finishes; summary.json, report.md and report.html
 * are written at the end from the directory itself (src/record/), so memory does not grow with
 * the dialogues' text however long the run.
 */
export async function runBenchmark(options: RunOptions): Promise<RunResult> {
  const { config, outDir } = options;
  const scenarios = selectScenarios(config, { onSkipped: options.events?.onSkippedProfileLines });
  checkPlanSize(config, scenarios.length);
  checkLibraryAgents(config, options.agents ?? {});
  const tokenizer = config.tokenizer === undefined ? undefined : loadReplyTokenizer(config.tokenizer.path);
  const directory = RunDirectory.open({
    dir: outDir,
    command: options.command ?? "library",
    defining: resultDefinition(config, scenarios, tokenizer),
    config,
    force: options.force ?? false,
  });
  let outcome: "finished" | "stopped" | "failed" = "failed";
  try {
    for (const note of directory.notes) options.events?.onNote?.(note);
    const onModelCall = options.events?.onModelCall;
    // A disk or file-system failure stops the run (it is no dialogue's fault, and no model's): what was written is whole, and the same command resumes.
    const stopOnWriteFailure = (error: unknown): boolean => {
      if (!FileWriteError.isInstance(error)) return false;
      plugins.fatal ??= error;
      plugins.abort.abort(error);
      return true;
    };
    const plugins = new PluginFactory({
      cacheDir: config.cache?.dir,
      env: options.env,
      warn: options.events?.onWarning,
      usage: directory.usage,
      onModelSuccess: () => {
        try {
          directory.claim();
        } catch (error) {
          if (!stopOnWriteFailure(error)) throw error;
        }
      },
      ...(options.agents !== undefined ? { libraryAgents: options.agents } : {}),
      ...(onModelCall ? { onModelCall } : {}),
    });
    directory.onWriteFailure = stopOnWriteFailure;
    if (directory.writeFailure !== undefined) stopOnWriteFailure(directory.writeFailure);
    const user = plugins.simulatedUser(config.simulator, scenarios);
    const agents = new Map(config.conditions.map((condition) => [condition.name, plugins.agent(condition.name, condition.agent)]));
    const judges: NamedJudges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };
    for (const warning of configWarnings(config)) options.events?.onWarning?.(warning);
    // Without a model there is no preflight to pass: the run can work, so it owns the directory now.
    if (plugins.models.length === 0) {
      try {
        directory.claim();
      } catch (error) {
        if (!stopOnWriteFailure(error)) throw error;
      }
    }

    const plan = new RunPlan(config.conditions, scenarios, config.repeats, config.seed);
    // Positions in the plan, not tasks: a task is made when its dialogue starts.
    const unfinished: number[] = [];
    for (let index = 0; index < plan.size; index += 1) if (!directory.recorder.finished.has(plan.idAt(index))) unfinished.push(index);
    const todo = options.limit === undefined ? unfinished : unfinished.slice(0, options.limit);
    const rejudge = dialoguesToRejudge(directory, plan, judges);
    const scenarioById = new Map(scenarios.map((scenario) => [scenario.id, scenario]));
    options.events?.onPlan?.({
      total: plan.size,
      alreadyFinished: plan.size - unfinished.length,
      toRun: todo.length,
      ...(todo.length < unfinished.length ? { limitedFrom: unfinished.length } : {}),
      resumed: directory.state !== "fresh",
      repaired: directory.repaired,
      judgeRetries: rejudge.length,
    });

    let errors = 0;
    let recorded = 0;
    const systematic = new SystematicFailureWatch(config.earlyStop.dialogues);
    const signal = AbortSignal.any([
      plugins.abort.signal,
      systematic.abort.signal,
      ...(options.signal === undefined ? [] : [options.signal]),
    ]);
    // Every in-flight model call listens on the run's signal: hundreds of listeners are expected.
    setMaxListeners(0, signal);
    await forEachConcurrent(
      rejudge,
      config.concurrency,
      async (record) => {
        const scenario = scenarioById.get(record.scenarioId);
        if (scenario === undefined) return;
        const judged = await judgeDialogue(record, scenario, judgesWithWork(record, judges), { signal });
        if (signal.aborted) return;
        try {
          directory.appendJudgement({
            id: record.id,
            ...(Object.keys(judged.ecs).length > 0 ? { ecs: judged.ecs } : {}),
            ...(Object.keys(judged.hid).length > 0 ? { hid: judged.hid } : {}),
          });
        } catch (error) {
          if (!stopOnWriteFailure(error)) throw error;
        }
      },
      signal,
    );
    await forEachConcurrent(
      todo,
      config.concurrency,
      async (position) => {
        // Offline dialogues never wait on I/O: yield to the event loop between them, so progress
        // timers and Ctrl-C are served during a long offline run.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (signal.aborted) return;
        const task = plan.taskAt(position);
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
        const counted = tokenizer === undefined ? played : withReplyTokens(played, tokenizer);
        const record = withNewJudgements(counted, await judgeDialogue(counted, task.scenario, judges, { signal }));
        // A failed preflight or a cancelled run is not the dialogue's fault: record nothing for it.
        if (signal.aborted) return;
        try {
          directory.append(record);
        } catch (error) {
          if (!stopOnWriteFailure(error)) throw error;
          return;
        }
        if (record.status === "error") errors += 1;
        recorded += 1;
        options.events?.onDialogue?.(record);
        systematic.observe(record);
      },
      signal,
    );
    if (plugins.fatal !== undefined) {
      outcome = FileWriteError.isInstance(plugins.fatal) ? "failed" : "stopped";
      throw plugins.fatal;
    }
    if (systematic.cause !== undefined) {
      outcome = "stopped";
      const { count, error } = systematic.cause;
      throw new RunStoppedError(
        `stopped early: the first ${count} dialogues all failed the same way, ${describeDialogueError(error)}\n` +
          `fix that cause, then resume (the failed dialogues run again); earlyStop: { dialogues: 0 } in the config never stops early`,
      );
    }
    // Stopped by the caller (Ctrl-C): what finished is kept and summarised; the run resumes later.
    const stopped = signal.aborted;
    if (stopped && !directory.claimed) {
      outcome = "stopped";
      throw new RunStoppedError(`the run was stopped before its first model call succeeded; nothing was written to ${outDir}`);
    }
    directory.claim();
    // The summary and reports first: run.json says "finished" only once everything is written
    // (the reports show the ending it will record, end time included).
    const ending = { outcome: stopped ? ("stopped" as const) : ("finished" as const), endedAt: new Date().toISOString() };
    const summary = await writeRunOutputs(outDir, {
      conditionOrder: config.conditions.map((condition) => condition.name),
      seed: config.seed,
      repeats: config.repeats,
      judges: { ecs: config.judges.ecs.map((judge) => judge.name), hid: config.judges.hid.map((judge) => judge.name) },
      ...(config.report?.reference !== undefined ? { reference: config.report.reference } : {}),
      ids: plan,
      endingAs: ending,
    });
    outcome = ending.outcome;
    directory.finish(outcome, ending.endedAt);
    let finished = 0;
    for (let index = 0; index < plan.size; index += 1) if (directory.recorder.finished.has(plan.idAt(index))) finished += 1;
    return {
      summary,
      ran: recorded,
      skipped: plan.size - unfinished.length,
      errors,
      judgeRetries: rejudge.length,
      outDir,
      stopped,
      finished,
      planned: plan.size,
    };
  } catch (error) {
    if (outcome === "finished") outcome = "failed";
    throw error;
  } finally {
    if (outcome !== "finished") directory.finishIfPossible(outcome);
    directory.close();
  }
}
