import { writeFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { AebError, RunDirectoryError } from "../../core/errors.js";
import { compareRuns, renderComparisonMarkdown, renderComparisonText } from "../../report/compare-runs.js";
import { parseConditionMappings, type ConditionMapping } from "../../report/condition-mapping.js";
import { simulatedUsersOfDirectory } from "../../interop/simulated-users.js";
import { loadRunRecords, readConditionOrder, readRunSeed } from "../../record/load-run.js";
import { seedValue } from "../options.js";

interface CompareFlags {
  out?: string;
  seed?: number;
  map?: ConditionMapping[];
}

/** Collects the repeatable `--map NAME_A=NAME_B[,NAME_A=NAME_B...]`; a malformed value is a flag error. */
function collectMappings(value: string, previous: ConditionMapping[] | undefined): ConditionMapping[] {
  try {
    return [...(previous ?? []), ...parseConditionMappings(value)];
  } catch (error) {
    if (AebError.isInstance(error)) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

/** The run seed a directory records, as RunSide's optional field. */
function seedOf(dir: string): { runSeed?: number } {
  const seed = readRunSeed(dir);
  return seed === null ? {} : { runSeed: seed };
}

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "Compare each condition across two runs, dialogue by dialogue (matched on scenario and repeat): the simulated user of each, FS in each run, the mean difference B - A and its paired bootstrap 95% CI. Conditions pair up by name, or as --map says. Runs scored by different simulated users, or run with different seeds, are compared with a warning (aeb agreement measures how far simulated users agree).",
    )
    .argument("<dirA>", "first run directory (A)")
    .argument("<dirB>", "second run directory (B)")
    .option("-o, --out <file>", "also write the comparison to FILE: JSON when FILE ends in .json, markdown otherwise")
    .option("--seed <n>", "seed of the paired bootstraps (default: 1)", seedValue)
    .option(
      "--map <NAME_A=NAME_B>",
      "compare condition NAME_A of run A with condition NAME_B of run B (repeatable, or a comma list); other conditions still pair by name",
      collectMappings,
    )
    .addHelpText(
      "after",
      "\nExamples:\n  aeb compare runs/before runs/after --out compare.md\n  aeb compare runs/base runs/rl --map qwen-7b=qwen-7b-rlver-ppo\n",
    )
    .action((dirA: string, dirB: string, flags: CompareFlags) => {
      const a = loadRunRecords(dirA);
      const b = loadRunRecords(dirB);
      for (const note of a.readingNotes) console.error(`note (A): ${note}`);
      for (const note of b.readingNotes) console.error(`note (B): ${note}`);
      const comparison = compareRuns(
        {
          label: dirA,
          records: a.records,
          conditionOrder: readConditionOrder(dirA),
          simulatedUser: simulatedUsersOfDirectory(dirA).of,
          ...seedOf(dirA),
        },
        {
          label: dirB,
          records: b.records,
          conditionOrder: readConditionOrder(dirB),
          simulatedUser: simulatedUsersOfDirectory(dirB).of,
          ...seedOf(dirB),
        },
        { seed: flags.seed, mapping: flags.map ?? [] },
      );
      if (comparison.sharedScenarios.length === 0) {
        throw new RunDirectoryError(
          `${dirA} and ${dirB} share no scenario (no scenario id was scored in both), so there is nothing to match; compare runs of the same suite`,
        );
      }
      if (comparison.conditions.length === 0) {
        throw new RunDirectoryError(
          `${dirA} and ${dirB} share no condition (A: ${comparison.onlyInA.join(", ") || "none"}; B: ${comparison.onlyInB.join(", ") || "none"}); conditions are matched by name: pair differently named ones with --map NAME_A=NAME_B`,
        );
      }
      for (const warning of comparison.warnings) console.error(`warning: ${warning}`);
      console.log(renderComparisonText(comparison));
      if (flags.out !== undefined) {
        writeFileSync(
          flags.out,
          flags.out.endsWith(".json") ? `${JSON.stringify(comparison, null, 2)}\n` : renderComparisonMarkdown(comparison),
        );
        console.log(`\nwrote ${flags.out}`);
      }
    });
}
