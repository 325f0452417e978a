import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { RunDirectoryError } from "../../core/errors.js";
import { compareRuns, renderComparisonMarkdown, renderComparisonText } from "../../report/compare-runs.js";
import { simulatedUsersOfDirectory } from "../../interop/simulated-users.js";
import { loadRunRecords, readConditionOrder } from "../../record/load-run.js";
import { nonNegativeInteger } from "../options.js";

interface CompareFlags {
  out?: string;
  seed?: number;
}

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "Compare each condition across two runs, dialogue by dialogue (matched on scenario and repeat): the simulated user of each, FS in each run, the mean difference B - A and its paired bootstrap 95% CI. Runs scored by different simulated users are compared with a warning (aeb agreement measures how far simulated users agree).",
    )
    .argument("<dirA>", "first run directory (A)")
    .argument("<dirB>", "second run directory (B)")
    .option("-o, --out <file>", "also write the comparison to FILE: JSON when FILE ends in .json, markdown otherwise")
    .option("--seed <n>", "seed of the paired bootstraps", nonNegativeInteger)
    .addHelpText("after", "\nExample:\n  aeb compare runs/before runs/after --out compare.md\n")
    .action((dirA: string, dirB: string, flags: CompareFlags) => {
      const a = loadRunRecords(dirA);
      const b = loadRunRecords(dirB);
      for (const note of a.readingNotes) console.error(`note (A): ${note}`);
      for (const note of b.readingNotes) console.error(`note (B): ${note}`);
      const comparison = compareRuns(
        { label: dirA, records: a.records, conditionOrder: readConditionOrder(dirA), simulatedUser: simulatedUsersOfDirectory(dirA).of },
        { label: dirB, records: b.records, conditionOrder: readConditionOrder(dirB), simulatedUser: simulatedUsersOfDirectory(dirB).of },
        { seed: flags.seed },
      );
      if (comparison.sharedScenarios.length === 0) {
        throw new RunDirectoryError(`${dirA} and ${dirB} share no scenario (no scenario id was scored in both), so there is nothing to match; compare runs of the same suite`);
      }
      if (comparison.conditions.length === 0) {
        throw new RunDirectoryError(
          `${dirA} and ${dirB} share no condition (A: ${comparison.onlyInA.join(", ") || "none"}; B: ${comparison.onlyInB.join(", ") || "none"}); conditions are matched by name`,
        );
      }
      for (const warning of comparison.warnings) console.error(`warning: ${warning}`);
      console.log(renderComparisonText(comparison));
      if (flags.out !== undefined) {
        writeFileSync(flags.out, flags.out.endsWith(".json") ? `${JSON.stringify(comparison, null, 2)}\n` : renderComparisonMarkdown(comparison));
        console.log(`\nwrote ${flags.out}`);
      }
    });
}
