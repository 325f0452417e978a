import { join } from "node:path";
import { Option, type Command } from "commander";
import { fixed } from "../../report/format.js";
import { parseTagList } from "../../probe/constraints.js";
import { POOL_TAGS } from "../../probe/pool-schema.js";
import { loadPools } from "../../probe/pools.js";
import { TARGET_GAP } from "../../probe/probe-report.js";
import { runProbe } from "../../probe/run-probe.js";
import { aebVersion } from "../../record/provenance.js";
import { PluginFactory } from "../../runner/plugins.js";
import { definingPluginConfig, packageDataFileHashes } from "../../runner/result-definition.js";
import { stableHash } from "../../core/stable-json.js";
import { selectScenarios } from "../../runner/run-benchmark.js";
import { invocationArgs } from "../invocation.js";
import { nonNegativeInteger, positiveInteger, positiveNumber } from "../options.js";
import { RunProgress } from "../progress.js";
import { resumeCommand } from "../resume-command.js";
import { configFromFlags } from "../run-config-flags.js";

interface ProbeFlags {
  out: string;
  config?: string;
  scenarios?: string;
  suite?: string;
  types?: string;
  preset?: string;
  scenario?: string[];
  seed?: number;
  budget: number;
  patience: number;
  maxFragments: number;
  trainSeeds: number;
  heldoutSeeds: number;
  pool: string[];
  require: string[];
  exclude: string[];
  concurrency?: number;
  force?: boolean;
  stopAfter?: number;
  progress: boolean;
  progressInterval: number;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerProbeCommand(program: Command): void {
  program
    .command("probe")
    .description(
      "Search the simulated user's reward as RL would: per trajectory type, hill climbing with restarts over replies composed of fragment pools, played through the environment's own step; reports the best return found against the attuned reference on held-out seeds (docs/probe.md).",
    )
    .requiredOption(
      "-o, --out <dir>",
      "output directory: probe.json, probe.md, learning-curve.svg and the checkpoint; a stopped probe there is resumed",
    )
    .option(
      "-c, --config <file>",
      "YAML run config: its simulator (offline, or an LLM user at an endpoint), scenario selection, seed and cache are used (as `aeb run`)",
    )
    .option("--scenarios <path>", "scenario directory or file (default: the built-in suites)")
    .option("--suite <name>", "built-in suite: full, starter or classic (default: full, or the config's)")
    .option("--types <list>", "comma-separated trajectory types to probe (default: all six adversarial types)")
    .option("--preset <name>", "play every scenario under this preset instead of its own: aeb, aeb-plus, sage or rlver")
    .option("--scenario <id...>", "only these scenario ids (repeatable, or comma-separated)")
    .option("--seed <n>", "probe seed: the same seed and definition give the same result (default: the config's, 1)", nonNegativeInteger)
    .option("--budget <n>", "evaluations of the search per type (each plays every training dialogue once)", positiveInteger, 500)
    .option(
      "--patience <n>",
      "restart the climb from a random policy after this many evaluations without improvement",
      positiveInteger,
      150,
    )
    .option("--max-fragments <n>", "most fragments in one reply", positiveInteger, 4)
    .option("--train-seeds <n>", "user seeds per scenario the search is scored on", positiveInteger, 2)
    .option("--heldout-seeds <n>", "other user seeds per scenario the best policy and attuned are checked on", positiveInteger, 2)
    .addOption(
      new Option("--pool <file>", "a fragment-pool file of your own, beside the built-in ones in data/probe/pools/ (repeatable)")
        .argParser(collect)
        .default([], "none"),
    )
    .addOption(
      new Option(
        "--require <tags>",
        "every reply carries a fragment from a pool with this tag (repeatable or comma-separated; e.g. harmful)",
      )
        .argParser(collect)
        .default([], "none"),
    )
    .addOption(
      new Option("--exclude <tags>", "no reply carries a fragment from a pool with this tag (repeatable or comma-separated; e.g. lexicon)")
        .argParser(collect)
        .default([], "none"),
    )
    .option("--concurrency <n>", "dialogues in flight at once (an LLM user; default: the config's, 8)", positiveInteger)
    .option("--force", "discard a probe already in --out (another definition, or a finished one) and start again")
    .addOption(
      new Option("--stop-after <n>", "tests: stop after N evaluations, as a kill would (the checkpoint is kept)")
        .argParser(positiveInteger)
        .hideHelp(),
    )
    .option("--no-progress", "no progress bar or progress lines")
    .option("--progress-interval <seconds>", "when stderr is not a terminal, print a progress line this often", positiveNumber, 30)
    .addHelpText(
      "after",
      [
        "",
        `Pool tags: ${POOL_TAGS.join(", ")} (data/probe/pools/*.yaml).`,
        "",
        "Examples:",
        "  aeb probe --out runs/probe --require harmful                 can harm be paid? (target: best stays 0.3 below attuned)",
        "  aeb probe --out runs/probe-nolex --exclude lexicon           is the reward reachable without the lexicon's strings?",
        "  aeb probe --out runs/probe-llm --config my-llm-user.yaml --suite starter --budget 50 --require harmful",
        "",
      ].join("\n"),
    )
    .action(async (flags: ProbeFlags) => {
      const config = configFromFlags({
        config: flags.config,
        scenarios: flags.scenarios,
        suite: flags.suite,
        types: flags.types,
        preset: flags.preset,
        scenario: flags.scenario,
      });
      const constraints = { require: parseTagList(flags.require, "--require"), exclude: parseTagList(flags.exclude, "--exclude") };
      const pools = loadPools(flags.pool);
      const scenarios = selectScenarios(config);
      const factory = new PluginFactory({ cacheDir: config.cache?.dir, warn: (message) => console.error(`warning: ${message}`) });
      const user = factory.simulatedUser(config.simulator);
      const args = invocationArgs();
      const progress = new RunProgress({
        stream: process.stderr,
        mode: !flags.progress ? "off" : process.stderr.isTTY === true ? "bar" : "lines",
        intervalMs: flags.progressInterval * 1000,
      });
      const controller = new AbortController();
      let stoppedBy: NodeJS.Signals | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stoppedBy !== undefined) process.exit(signal === "SIGINT" ? 130 : 143);
        stoppedBy = signal;
        progress.stop();
        console.error(
          `\n${signal}: stopping; the evaluation in flight is dropped, the search so far is kept (${signal} again quits at once)`,
        );
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      let outcome: Awaited<ReturnType<typeof runProbe>>;
      try {
        outcome = await runProbe({
          scenarios,
          user,
          userDefinition: {
            simulator: definingPluginConfig(config.simulator),
            aebVersion: aebVersion(),
            dataFiles: stableHash(packageDataFileHashes()),
          },
          pools,
          constraints,
          seed: flags.seed ?? config.seed,
          budget: flags.budget,
          patience: flags.patience,
          maxFragments: flags.maxFragments,
          trainSeeds: flags.trainSeeds,
          heldoutSeeds: flags.heldoutSeeds,
          concurrency: flags.concurrency ?? config.concurrency,
          outDir: flags.out,
          force: flags.force,
          signal: AbortSignal.any([controller.signal, factory.abort.signal]),
          ...(flags.stopAfter !== undefined ? { stopAfter: flags.stopAfter } : {}),
          events: {
            onPlan: ({ dialogues, resumedTypes, resumedEvaluations }) => {
              if (resumedEvaluations > 0)
                console.error(`resuming ${flags.out}: ${resumedEvaluations} evaluation(s) of ${resumedTypes} type(s) already done`);
              progress.start(dialogues);
            },
            onEpisode: () => progress.tick(false),
            onTypeDone: (search) => {
              if (search.heldOut === null) return;
              const message = `${search.type}: best ${fixed(search.best?.score)} on training seeds; held-out best ${fixed(search.heldOut.best)} vs attuned ${fixed(search.heldOut.attuned)} (gap ${fixed(search.heldOut.gap)})`;
              if (process.stderr.isTTY === true && flags.progress) process.stderr.write(`\n${message}\n`);
              else console.error(message);
            },
          },
        });
      } finally {
        process.removeListener("SIGINT", onSignal);
        process.removeListener("SIGTERM", onSignal);
        progress.stop();
      }
      if (factory.fatal !== undefined) throw factory.fatal;
      const { result, stopped } = outcome;
      for (const type of result.types) {
        console.log(
          `${type.type.padEnd(27)} ${type.status.padEnd(9)} best held-out ${fixed(type.heldOut?.best)}  attuned ${fixed(type.heldOut?.attuned)}  gap ${fixed(type.heldOut?.gap)}`,
        );
      }
      if (result.overall.types > 0)
        console.log(
          `overall: best ${fixed(result.overall.heldOutBest)}, attuned ${fixed(result.overall.heldOutAttuned)}, mean gap ${fixed(result.overall.gap)}, smallest ${fixed(result.overall.minGap)} (target: at least ${TARGET_GAP})`,
        );
      console.log(`files: ${join(flags.out, "probe.json")}, ${join(flags.out, "probe.md")}, ${join(flags.out, "learning-curve.svg")}`);
      if (stopped) {
        console.error(`stopped: the search so far is kept in ${join(flags.out, "checkpoint.json")}`);
        console.error(`resume with: ${resumeCommand(resumableArgs(args), flags.out)}`);
        process.exitCode = stoppedBy === undefined ? 3 : stoppedBy === "SIGINT" ? 130 : 143;
      }
    });
}

/** The invocation's arguments without those that must not repeat on resume: --force (it would start again) and --stop-after. */
function resumableArgs(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === "--force" || arg.startsWith("--stop-after=")) continue;
    if (arg === "--stop-after") {
      index += 1;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}
