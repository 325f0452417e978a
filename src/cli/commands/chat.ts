import { seedValue } from "../options.js";
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { getPreset, PresetName } from "../../core/preset.js";
import { createRng, deriveSeed } from "../../core/random.js";
import { readDialogueRows } from "../../record/dialogue-reader.js";
import { readRunSetup } from "../../record/load-run.js";
import { RunDirectory } from "../../record/run-directory.js";
import { aebVersion } from "../../record/provenance.js";
import { writeRunOutputs } from "../../runner/run-outputs.js";
import { PluginFactory } from "../../runner/plugins.js";
import { definingPluginConfig, packageDataFileHashes } from "../../runner/result-definition.js";
import { loadRunConfig, parseRunConfig } from "../../runner/run-config.js";
import { selectScenarios } from "../../runner/run-benchmark.js";
import { chatSession } from "../chat-session.js";
import { offlineUserNote } from "../offline-user-note.js";

interface ChatFlags {
  scenario?: string;
  scenarios?: string;
  suite?: string;
  preset?: string;
  config?: string;
  reveal?: boolean;
  out: string;
  seed?: number;
}

export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description(
      "Play the agent yourself: talk to a simulated user (the offline one, or the LLM user of a config) on one scenario, in the terminal. The finished dialogue is saved into a run directory as condition `human`, beside the models' dialogues (the same scenario and seed meet the same simulated-user randomness), and the reports are rewritten.",
    )
    .option("--scenario <id>", "the scenario to play (default: one picked by the seed from the selection)")
    .option("--scenarios <path>", "scenario directory or file, or sage:PATH / rlver:PATH (default: the built-in suites)")
    .option("--suite <name>", "built-in suite: full, starter or classic")
    .option("--preset <name>", "play under this preset instead of the scenario's own")
    .option("-c, --config <file>", "take the simulated user (and its model) from this run config; default the offline user")
    .option(
      "--reveal",
      "after each reply, show the emotion, its change and why (the rubric items and adjustments behind it); at the end, the user's hidden intention",
    )
    .option("-o, --out <dir>", "run directory to save the dialogue into (a run of aeb run, to sit beside its models)", "runs/chat")
    .option("--seed <n>", "run seed when the directory has none", seedValue)
    .addHelpText(
      "after",
      "\nType a reply after `you>`. Lines that start with / are commands, never sent to the user: /help lists them, /reveal turns the reasons on or off, /quit stops without saving. With --reveal the hidden intention is shown once the dialogue ends.\nExamples:\n  aeb chat --scenario escalation-cancelled-project --reveal\n  aeb chat --config examples/mock-llm-demo.yaml --out runs/mock --reveal\n",
    )
    .action(async (flags: ChatFlags) => {
      const config = flags.config === undefined ? parseRunConfig({}, "defaults") : loadRunConfig(flags.config);
      if (flags.preset !== undefined && !PresetName.safeParse(flags.preset).success)
        throw new ConfigError(`--preset: unknown preset "${flags.preset}" (known: ${PresetName.options.join(", ")})`);
      const selection = {
        ...config.scenarios,
        ...(flags.scenarios !== undefined ? { path: flags.scenarios, suite: undefined } : {}),
        ...(flags.suite !== undefined ? { suite: flags.suite } : {}),
        ...(flags.scenario !== undefined ? { ids: [flags.scenario] } : {}),
        ...(flags.preset !== undefined ? { preset: flags.preset as PresetName } : {}),
      };
      const scenarios = selectScenarios({ ...config, scenarios: selection });
      const { config: recorded } = readRunSetup(flags.out);
      const runSeed = recorded?.seed ?? flags.seed ?? config.seed;
      const scenario = scenarios.length === 1 ? scenarios[0]! : createRng(runSeed).pick(scenarios);
      const preset = getPreset(scenario.preset);

      const directory = RunDirectory.openForAdding(flags.out, "aeb chat", {
        defining: {
          kind: "chat",
          aebVersion: aebVersion(),
          simulator: definingPluginConfig(config.simulator),
          files: packageDataFileHashes(),
        },
        config: { seed: runSeed, simulator: config.simulator, scenarios: selection },
      });
      let saved = false;
      try {
        const plugins = new PluginFactory({
          cacheDir: config.cache?.dir,
          usage: directory.usage,
          onModelSuccess: () => directory.claim(),
          warn: (message) => console.error(`warning: ${message}`),
        });
        const user = plugins.simulatedUser(config.simulator, [scenario]);
        if (config.simulator.kind === "offline") console.error(offlineUserNote("person"));
        const played = readDialogueRows(flags.out).rows.filter((row) => row.condition === "human" && row.scenarioId === scenario.id);
        const repeat = played.length === 0 ? 0 : Math.max(...played.map((row) => row.repeat)) + 1;
        const record = await chatSession({
          scenario,
          preset,
          user,
          // The seed a run of this directory gives the scenario and repeat: the person meets the models' user.
          seed: deriveSeed(runSeed, scenario.id, repeat),
          dialogueId: `human/${scenario.id}/${repeat}`,
          repeat,
          input: process.stdin,
          output: process.stdout,
          reveal: flags.reveal === true,
        });
        if (record === undefined) {
          console.log("\nstopped before the dialogue ended: nothing saved");
          return;
        }
        directory.append(record);
        directory.finish("finished");
        saved = true;
      } finally {
        if (!saved) directory.finish("stopped");
        directory.close();
      }
      const setup = readRunSetup(flags.out).config;
      const order = setup?.conditions?.map((condition) => condition.name) ?? [];
      await writeRunOutputs(flags.out, {
        conditionOrder: [...order.filter((name) => name !== "human"), "human"],
        seed: setup?.seed ?? runSeed,
        repeats: Math.max(setup?.repeats ?? 1, ...readDialogueRows(flags.out).rows.map((row) => row.repeat + 1)),
        ...(setup?.judges !== undefined
          ? {
              judges: {
                ecs: (setup.judges.ecs ?? []).map((judge) => judge.name),
                hid: (setup.judges.hid ?? []).map((judge) => judge.name),
              },
            }
          : {}),
      });
      console.log(`saved as condition human -> ${flags.out} (report.md and report.html rewritten)`);
    });
}
