import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { FileWriteError } from "../../record/write-error.js";
import { AebError, RunStoppedError } from "../../core/errors.js";
import type { RunConfig } from "../../runner/run-config.js";
import { runBenchmark } from "../../runner/run-benchmark.js";
import { estimatePlanCost, type PlanCost } from "../../runner/plan-cost.js";
import { SYSTEM_PROMPT_FILE_HINT } from "../../runner/plugins.js";
import { policyChatModel } from "../../testing/policy-chat-model.js";
import { textTable } from "../../report/format.js";
import { renderTerminalSummary } from "../../report/terminal-summary.js";
import { positiveInteger, positiveNumber, seedValue } from "../options.js";
import { RunProgress } from "../progress.js";
import { invocationArgs } from "../invocation.js";
import { resumeCommand } from "../resume-command.js";
import { offlineUserNote } from "../offline-user-note.js";
import { judgeFailureCount, nextStepLines, usageLines } from "../run-epilogue.js";
import { configFromFlags, type RunConfigFlags } from "../run-config-flags.js";
import { describeSkippedLine } from "../skipped-line.js";

/** `aeb run`'s flags: those of the config (run-config-flags.ts) and those of this invocation. */
interface RunFlags extends RunConfigFlags {
  out?: string;
  force?: boolean;
  limit?: number;
  dryRun?: boolean;
  progress: boolean;
  progressInterval?: number;
}

/** A fresh directory under runs/, named by the time (the name never enters the results). */
function freshRunDirectory(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  let candidate = join("runs", stamp);
  for (let suffix = 2; existsSync(candidate); suffix += 1) candidate = join("runs", `${stamp}-${suffix}`);
  return candidate;
}

/** The dry run's plan, as a person reads it. */
export function renderPlanCost(cost: PlanCost, config: RunConfig): string {
  const number = (value: number) => value.toLocaleString("en-US");
  const lines = [
    `plan: ${number(cost.dialogues)} dialogues (${cost.conditions} condition(s) x ${cost.scenarios} scenario(s) x ${number(cost.repeats)} repeat(s)), seed ${config.seed}, ${config.concurrency} in flight`,
  ];
  if (cost.roles.length === 0) {
    lines.push("model calls: none (offline reference agents, offline simulated user and judges)");
    return lines.join("\n");
  }
  lines.push(
    "",
    textTable(
      ["role", "model", "calls (est.)", "calls at most", "prompt tokens (est.)", "completion tokens (canned)", "completion tokens at most"],
      cost.roles.map((role) => [
        role.role,
        role.model,
        number(role.calls),
        number(role.maxCalls),
        number(role.promptTokens),
        number(role.cannedCompletionTokens),
        role.maxCompletionTokens === null ? "no cap set" : number(role.maxCompletionTokens),
      ]),
    ),
    "",
    "calls (est.) and prompt tokens: each scenario played once per condition in memory, through the run's own agents, simulated user",
    "and judges, with canned answers in place of the models' (the mock's reply policy), then times the repeats. Real dialogues end",
    "sooner or later than canned ones, and real replies are usually longer, so prompts grow faster: read the prompt tokens as a floor.",
    "calls at most: every dialogue to its turn limit. completion tokens at most: the role's maxTokens times those calls.",
    `tokens counted with ${cost.tokenCount}. Nothing was sent and nothing was written.`,
  );
  if (cost.missingFiles.length > 0) {
    lines.push(
      "",
      "a real run needs these files, which cannot be read now (the plan above counted the built-in system prompt in their place):",
      ...cost.missingFiles.map((file) => `  ${file.path} (${file.reason}), for ${file.conditions.join(", ")}`),
      SYSTEM_PROMPT_FILE_HINT,
    );
  }
  return lines.join("\n");
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description(
      "Run the benchmark: conditions x scenarios x repeats. With no flags: the offline default (every reference agent, the built-in suite) into a fresh directory under runs/.",
    )
    .option(
      "-c, --config <file>",
      "YAML run config (conditions, simulator, scenarios, seed...; default: every reference agent against the offline user)",
    )
    .option("-o, --out <dir>", "output directory; an existing run there is resumed (default: a fresh runs/<date-time>)")
    .option("--scenarios <path>", "scenario directory or file (default: the built-in suites)")
    .option("--suite <name>", "built-in suite: full, starter or classic (default: full, or the config's)")
    .option("--types <list>", "comma-separated trajectory types to run (default: all)")
    .option("--repeats <n>", "dialogues per condition and scenario (default: 1, or the config's)", positiveInteger)
    .option("--seed <n>", "run seed: the same seed gives the same results (default: 1, or the config's)", seedValue)
    .option("--concurrency <n>", "dialogues in flight at once (default: 8, or the config's)", positiveInteger)
    .option("--tokenizer <path>", "also count replies in tokens: a Hugging Face tokenizer.json, or a model directory holding one")
    .option(
      "--force",
      "continue a run directory made with a different definition (another config, data files or AEB version); its finished dialogues still in the plan are kept",
    )
    .option("--skip-invalid", "with --scenarios sage:PATH or rlver:PATH: skip profile lines that do not parse or validate, and list them")
    .option("--preset <name>", "play every scenario under this preset instead of its own: aeb, aeb-plus, sage or rlver (docs/fidelity.md)")
    .option("--scenario <id...>", "only these scenario ids (repeatable, or comma-separated); try one dialogue with --limit 1")
    .option(
      "--limit <n>",
      "run at most N dialogues of the plan now (the plan's order); a later run without it does the rest",
      positiveInteger,
    )
    .option("--dry-run", "print the plan (dialogues, model calls per role, estimated tokens) and exit: nothing is sent, nothing written")
    .option(
      "--agent-url <url>",
      "one model under test at this OpenAI-compatible endpoint (with --agent-model), against the offline user; no config file needed",
    )
    .option("--agent-model <name>", "the model's name on that server")
    .option("--agent-name <name>", "the condition's name (default: the model's name)")
    .option("--api-key-env <var>", "the environment variable holding the endpoint's API key (its name, never the key)")
    .option("--think", "the agent thinks first (<think>...</think> or the server's reasoning field)")
    .option("--no-progress", "no progress bar or progress lines")
    .option("--progress-interval <seconds>", "when stderr is not a terminal, print a progress line this often", positiveNumber, 30)
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  aeb run                                                offline default",
        "  aeb run --suite starter --repeats 3 --out runs/quick",
        "  aeb run --config examples/single-local-model.yaml --out runs/qwen",
        "  aeb run --agent-url http://localhost:8000/v1 --agent-model qwen2.5-7b --suite starter",
        "  aeb run --config examples/paper-eight-conditions.yaml --dry-run",
        "  aeb run --scenario escalation-cancelled-project --limit 1 --out runs/try",
        "",
      ].join("\n"),
    )
    .action(async (flags: RunFlags) => {
      const config = configFromFlags(flags);
      if (flags.dryRun === true) {
        console.log(
          renderPlanCost(
            await estimatePlanCost(config, { modelFactory: (role, endpoint) => policyChatModel(endpoint.model, role) }),
            config,
          ),
        );
        return;
      }
      if (flags.agentUrl !== undefined && config.simulator.kind === "offline") console.error(offlineUserNote("model"));
      const outDir = flags.out ?? freshRunDirectory();
      const args = invocationArgs();
      const progress = new RunProgress({
        stream: process.stderr,
        mode: !flags.progress ? "off" : process.stderr.isTTY === true ? "bar" : "lines",
        intervalMs: (flags.progressInterval ?? 30) * 1000,
      });
      // Ctrl-C or SIGTERM: stop starting dialogues, keep what finished, say how to resume. A second one quits at once.
      const controller = new AbortController();
      let stoppedBy: NodeJS.Signals | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stoppedBy !== undefined) process.exit(signal === "SIGINT" ? 130 : 143);
        stoppedBy = signal;
        progress.stop();
        console.error(
          `\n${signal}: stopping; dialogues in flight are dropped (they run again on resume), finished ones are kept (${signal} again quits at once)`,
        );
        controller.abort(new RunStoppedError(`stopped by ${signal}`));
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      let result: Awaited<ReturnType<typeof runBenchmark>>;
      try {
        result = await runBenchmark({
          config,
          outDir,
          force: flags.force,
          command: "aeb run",
          signal: controller.signal,
          ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
          events: {
            onPlan: ({ total, alreadyFinished, toRun, resumed, repaired, judgeRetries, limitedFrom }) => {
              if (resumed) console.error(`resuming ${outDir}: ${alreadyFinished} of ${total} dialogues already finished, ${toRun} to run`);
              if (repaired.tornTail) console.error("repaired a torn last line in dialogues.jsonl (an interrupted write)");
              if (repaired.erroredMoved > 0)
                console.error(`retrying ${repaired.erroredMoved} dialogue(s) that ended in error (moved to dialogues.errors.jsonl)`);
              if (judgeRetries > 0) console.error(`retrying the failed judge calls of ${judgeRetries} finished dialogue(s)`);
              if (limitedFrom !== undefined)
                console.error(
                  `--limit: running ${toRun} of the ${limitedFrom} unfinished dialogue(s) now; run again without --limit for the rest`,
                );
              progress.start(toRun);
            },
            onNote: (message) => console.error(`note: ${message}`),
            onSkippedProfileLines: (lines) => {
              for (const line of lines) console.error(describeSkippedLine(line));
              console.error(`skipped ${lines.length} invalid profile line(s); the other profiles run`);
            },
            onWarning: (message) => console.error(`warning: ${message}`),
            onDialogue: (record) => progress.tick(record.status === "error"),
          },
        });
      } catch (error) {
        if (FileWriteError.isInstance(error)) {
          // A full disk, a read-only mount: the run's files are whole, and the same command resumes once it is fixed.
          progress.stop();
          console.error(`aeb: ${error.message}`);
          console.error(`resume with: ${resumeCommand(args, outDir)}`);
          process.exitCode = 1;
          return;
        }
        if (!(AebError.isInstance(error) && error.name === "RunStoppedError")) throw error;
        progress.stop();
        console.error(`aeb: ${error.message}`);
        console.error(`resume with: ${resumeCommand(args, outDir)}`);
        process.exitCode = stoppedBy === undefined ? 3 : stoppedBy === "SIGINT" ? 130 : 143;
        return;
      } finally {
        process.removeListener("SIGINT", onSignal);
        process.removeListener("SIGTERM", onSignal);
      }
      progress.stop();
      console.log(renderTerminalSummary(result.summary, config.simulator));
      console.log(`\n${result.summary.dialogues} dialogues (${result.ran} run now, ${result.skipped} kept from before) -> ${outDir}`);
      console.log(
        `files: ${join(outDir, "dialogues.jsonl")}, ${join(outDir, "summary.json")}, ${join(outDir, "report.md")}, ${join(outDir, "report.html")}`,
      );
      console.log([...usageLines(result.summary.usage, config.prices), ...nextStepLines(outDir)].join("\n"));
      if (result.stopped) {
        console.error(
          `stopped by ${stoppedBy ?? "the caller"}: ${result.finished} of ${result.planned} dialogues finished and kept in ${outDir} (the summary and reports above cover those)`,
        );
        console.error(`resume with: ${resumeCommand(args, outDir)}`);
        process.exitCode = stoppedBy === "SIGTERM" ? 143 : 130;
        return;
      }
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
