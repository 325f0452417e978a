import type { RunSummary } from "../analysis/summary-schema.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { detectLanguage } from "../lexicon/lexicon.js";
import { scanDialogues } from "../record/dialogue-reader.js";
import { readRunSetup } from "../record/load-run.js";
import { RunDirectory } from "../record/run-directory.js";
import { writeRunOutputs } from "./run-outputs.js";
import { FileWriteError } from "../record/write-error.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { loadScenarioSource } from "../scenarios/scenario-source.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { forEachConcurrent } from "./concurrency.js";
import { judgeDialogue, judgesWithWork, type NamedJudges } from "./dialogue-judgements.js";
import { configWarnings, PluginFactory } from "./plugins.js";
import type { RunConfig } from "./run-config.js";

export interface JudgeRunOptions {
  dir: string;
  /** Its `judges` and `cache` are used; its scenarios only to find hidden intentions. */
  config: RunConfig;
  concurrency: number;
  /** Judge again what a judge of the same name already judged (else only what it never judged, or judged with failures). */
  rejudge: boolean;
  onWarning?: (message: string) => void;
  env?: Readonly<Record<string, string | undefined>>;
  /** What is running, for run.json and the lock (default `library`). */
  command?: string;
}

export interface JudgeRunResult {
  summary: RunSummary;
  /** Dialogues judged now (in full, or only the parts that had failed). */
  judged: number;
  /** Of those, dialogues whose earlier judgement had failed parts. */
  retried: number;
  /** Dialogues every configured judge had already judged without failure. */
  skipped: number;
  excluded: number;
  excludedReason: string;
}

/** Scenarios that may have produced the run, by id: the built-in suites and the config's own path. */
function scenarioIndex(config: RunConfig): Map<string, Scenario> {
  const index = new Map<string, Scenario>();
  for (const scenario of loadScenarioDirectory(BUILTIN_SCENARIO_DIR)) index.set(scenario.id, scenario);
  if (config.scenarios.path !== undefined)
    for (const scenario of loadScenarioSource(config.scenarios.path, { skipInvalid: true }).scenarios) index.set(scenario.id, scenario);
  return index;
}

/**
 * Judges a finished run afresh, without touching its dialogues: results are appended to
 * judgements.jsonl (one line per dialogue), so a judge can be added, compared with another by
 * name, or rerun after a crash. A dialogue a judge already judged is skipped, unless that
 * judgement failed in part (turns it could not read, a verdict left out): those parts are tried
 * again.
 */
export async function judgeRun(options: JudgeRunOptions): Promise<JudgeRunResult> {
  const { dir, config } = options;
  const directory = RunDirectory.openForJudging(dir, options.command ?? "library");
  let outcome: "finished" | "stopped" | "failed" = "failed";
  try {
    // A disk or file-system failure stops the judging (no judge is blamed for it); what was written is whole.
    const stopOnWriteFailure = (error: unknown): boolean => {
      if (!FileWriteError.isInstance(error)) return false;
      plugins.fatal ??= error;
      plugins.abort.abort(error);
      return true;
    };
    const claim = () => {
      try {
        directory.claim();
      } catch (error) {
        if (!stopOnWriteFailure(error)) throw error;
      }
    };
    const plugins = new PluginFactory({
      cacheDir: config.cache?.dir,
      env: options.env,
      warn: options.onWarning,
      usage: directory.usage,
      onModelSuccess: claim,
    });
    directory.onWriteFailure = stopOnWriteFailure;
    const judges: NamedJudges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };
    for (const warning of configWarnings(config)) options.onWarning?.(warning);
    if (judges.ecs.length + judges.hid.length === 0) throw new RunDirectoryError("the config names no judge (judges.ecs / judges.hid)");
    if (plugins.models.length === 0) claim();

    const scenarios = scenarioIndex(config);
    const reasons = new Map<string, number>();
    const note = (reason: string) => reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    const todo: Array<{
      record: DialogueRecord;
      judges: NamedJudges;
      retry: boolean;
      scenario: Pick<Scenario, "language" | "hiddenIntention">;
    }> = [];
    let skipped = 0;
    const { tornTail } = scanDialogues(dir, (record) => {
      if (record.status !== "done") {
        note("ended in error");
        return;
      }
      const scenario = scenarios.get(record.scenarioId);
      const work = judgesWithWork(record, judges, options.rejudge);
      if (scenario === undefined && work.hid.length > 0) {
        note("scenario unknown, so no hidden intention for the HID judge");
        work.hid = [];
      }
      if (work.ecs.length + work.hid.length === 0) {
        skipped += 1;
        return;
      }
      const retry = [...work.ecs, ...work.hid].some(({ name }) => record.ecs?.[name] !== undefined || record.hid?.[name] !== undefined);
      const language = scenario?.language ?? detectLanguage(record.opening.text);
      todo.push({
        record,
        judges: work,
        retry: retry && !options.rejudge,
        scenario: scenario ?? { language, hiddenIntention: { text: "", moves: ["grounded"] } },
      });
    });
    if (tornTail) options.onWarning?.("dialogues.jsonl ends with a torn line (an interrupted run); it is ignored");

    await forEachConcurrent(
      todo,
      options.concurrency,
      async ({ record, judges: work, scenario }) => {
        const judged = await judgeDialogue(record, scenario, work, { signal: plugins.abort.signal, fresh: options.rejudge });
        if (plugins.abort.signal.aborted) return;
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
      plugins.abort.signal,
    );
    if (plugins.fatal !== undefined) {
      outcome = FileWriteError.isInstance(plugins.fatal) ? "failed" : "stopped";
      throw plugins.fatal;
    }

    directory.claim();
    // The summary and reports first: run.json says "finished" only once they are written.
    const ending = { outcome: "finished" as const, endedAt: new Date().toISOString() };
    const { config: recorded } = readRunSetup(dir);
    const summary = await writeRunOutputs(dir, {
      ...(recorded?.conditions !== undefined ? { conditionOrder: recorded.conditions.map((condition) => condition.name) } : {}),
      seed: recorded?.seed ?? 1,
      repeats: recorded?.repeats ?? 1,
      judges: { ecs: config.judges.ecs.map((judge) => judge.name), hid: config.judges.hid.map((judge) => judge.name) },
      endingAs: ending,
    });
    outcome = "finished";
    directory.finish(outcome, ending.endedAt);
    const excluded = [...reasons.values()].reduce((sum, count) => sum + count, 0);
    return {
      summary,
      judged: todo.length,
      retried: todo.filter((item) => item.retry).length,
      skipped,
      excluded,
      excludedReason: [...reasons].map(([reason, count]) => `${count} ${reason}`).join("; "),
    };
  } finally {
    if (outcome !== "finished") directory.finishIfPossible(outcome);
    directory.close();
  }
}
