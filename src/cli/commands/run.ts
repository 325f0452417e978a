import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { SingleBar, Presets } from "cli-progress";
import { ConfigError } from "../../core/errors.js";
import { PresetName } from "../../core/preset.js";
import { parseTypeList } from "../../scenarios/load-scenarios.js";
import type { RunSummary } from "../../analysis/summary-schema.js";
import { loadRunConfig, parseRunConfig, type RunConfig } from "../../runner/run-config.js";
import { runBenchmark } from "../../runner/run-benchmark.js";
import { renderTerminalSummary } from "../../report/terminal-summary.js";
import { nonNegativeInteger, positiveInteger } from "../options.js";
import { describeSkippedLine } from "./import.js";

interface RunFlags {
  config?: string;
  out?: string;
  scenarios?: string;
  suite?: string;
  types?: string;
  repeats?: number;
  seed?: number;
  concurrency?: number;
  tokenizer?: string;
  force?: boolean;
  skipInvalid?: boolean;
  preset?: string;
  progress: boolean;
}

/** `--preset NAME`: one of the presets of data/presets.yaml. */
function parsePresetName(value: string): PresetName {
  const parsed = PresetName.safeParse(value);
  if (!parsed.success) throw new ConfigError(`--preset: unknown preset "${value}" (known: ${PresetName.options.join(", ")})`);
  return parsed.data;
}

/** A fresh directory under runs/, named by the time (the name never enters the results). */
function freshRunDirectory(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  let candidate = join("runs", stamp);
  for (let suffix = 2; existsSync(candidate); suffix += 1) candidate = join("runs", `${stamp}-${suffix}`);
  return candidate;
}

export function configFromFlags(flags: RunFlags): RunConfig {
  const base = flags.config ? loadRunConfig(flags.config) : parseRunConfig({}, "defaults");
  const scenarios = { ...base.scenarios };
  if (flags.scenarios !== undefined) {
    scenarios.path = flags.scenarios;
    delete scenarios.suite;
  }
  if (flags.suite !== undefined) scenarios.suite = flags.suite;
  if (flags.skipInvalid === true) scenarios.skipInvalid = true;
  if (flags.types !== undefined) scenarios.types = parseTypeList(flags.types);
  if (flags.preset !== undefined) scenarios.preset = parsePresetName(flags.preset);
  return {
    ...base,
    scenarios,
    ...(flags.repeats !== undefined ? { repeats: flags.repeats } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.tokenizer !== undefined ? { tokenizer: { path: flags.tokenizer } } : {}),
  };
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

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("Run the benchmark: conditions x scenarios x repeats. With no flags: the offline default (every reference agent, the built-in suite) into a fresh directory under runs/.")
    .option("-c, --config <file>", "YAML run config (conditions, simulator, scenarios, seed...)")
    .option("-o, --out <dir>", "output directory; an existing run there is resumed")
    .option("--scenarios <path>", "scenario directory or file (default: the built-in suites)")
    .option("--suite <name>", "built-in suite: full, starter or classic")
    .option("--types <list>", "comma-separated trajectory types to run")
    .option("--repeats <n>", "dialogues per condition and scenario", positiveInteger)
    .option("--seed <n>", "run seed (same seed, same results)", nonNegativeInteger)
    .option("--concurrency <n>", "dialogues in flight at once", positiveInteger)
    .option("--tokenizer <path>", "also count replies in tokens: a Hugging Face tokenizer.json, or a model directory holding one")
    .option("--force", "continue a run directory made with a different definition (another config, data files or AEB version); its finished dialogues still in the plan are kept")
    .option("--skip-invalid", "with --scenarios sage:PATH or rlver:PATH: skip profile lines that do not parse or validate, and list them")
    .option("--preset <name>", "play every scenario under this preset instead of its own: aeb, aeb-plus, sage or rlver (docs/fidelity.md)")
    .option("--no-progress", "no progress bar")
    .addHelpText(
      "after",
      "\nExamples:\n  aeb run                                   offline default\n  aeb run --suite starter --repeats 3 --out runs/quick\n  aeb run --config examples/single-local-model.yaml --out runs/qwen\n",
    )
    .action(async (flags: RunFlags) => {
      const config = configFromFlags(flags);
      const outDir = flags.out ?? freshRunDirectory();
      const showBar = flags.progress && process.stderr.isTTY === true;
      const bar = new SingleBar({ format: "{bar} {value}/{total} dialogues | {eta_formatted} left | errors {errors}", stream: process.stderr, hideCursor: true }, Presets.shades_classic);
      let errors = 0;
      const result = await runBenchmark({
        config,
        outDir,
        force: flags.force,
        command: "aeb run",
        events: {
          onPlan: ({ total, alreadyFinished, toRun, resumed, repaired, judgeRetries }) => {
            if (resumed) console.error(`resuming ${outDir}: ${alreadyFinished} of ${total} dialogues already finished, ${toRun} to run`);
            if (repaired.tornTail) console.error("repaired a torn last line in dialogues.jsonl (an interrupted write)");
            if (repaired.erroredMoved > 0) console.error(`retrying ${repaired.erroredMoved} dialogue(s) that ended in error (moved to dialogues.errors.jsonl)`);
            if (judgeRetries > 0) console.error(`retrying the failed judge calls of ${judgeRetries} finished dialogue(s)`);
            if (showBar) bar.start(toRun, 0, { errors: 0 });
          },
          onNote: (message) => console.error(`note: ${message}`),
          onSkippedProfileLines: (lines) => {
            for (const line of lines) console.error(describeSkippedLine(line));
            console.error(`skipped ${lines.length} invalid profile line(s); the other profiles run`);
          },
          onWarning: (message) => console.error(`warning: ${message}`),
          onDialogue: (record) => {
            if (record.status === "error") errors += 1;
            if (showBar) bar.increment(1, { errors });
          },
        },
      });
      if (showBar) bar.stop();
      console.log(renderTerminalSummary(result.summary));
      console.log(`\n${result.summary.dialogues} dialogues (${result.ran} run now, ${result.skipped} kept from before) -> ${outDir}`);
      console.log(`files: ${join(outDir, "dialogues.jsonl")}, ${join(outDir, "summary.json")}, ${join(outDir, "report.md")}, ${join(outDir, "report.html")}`);
      const errorRate = result.summary.dialogues === 0 ? 0 : result.summary.errors / result.summary.dialogues;
      if (result.summary.errors > 0) {
        console.error(`${result.summary.errors} dialogue(s) ended in error; run the same command again to retry only those`);
        if (errorRate > config.maxErrorRate) process.exitCode = 2;
      }
      const judgeFailures = judgeFailureCount(result.summary);
      if (judgeFailures > 0) {
        console.error(`${judgeFailures} judge call(s) failed (turns or verdicts left out); run the same command again to retry only those`);
        process.exitCode = 2;
      }
    });
}
