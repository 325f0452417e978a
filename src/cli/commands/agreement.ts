import type { Command } from "commander";
import { agreementReport, DEFAULT_AGREEMENT_RESAMPLES } from "../../analysis/agreement.js";
import { AebError } from "../../core/errors.js";
import { loadSimulatedUser, parseSimulatedUserArgument } from "../../interop/agreement-sources.js";
import { renderAgreementText, writeAgreementFiles } from "../../report/agreement-report.js";
import { positiveInteger, seedValue } from "../options.js";
import { describeSkippedLine } from "../skipped-line.js";

interface AgreementFlags {
  out?: string;
  seed: number;
  resamples: number;
}

export function registerAgreementCommand(program: Command): void {
  program
    .command("agreement")
    .description(
      "How far a score travels: given the same agents scored by two or more simulated users, how well the users agree (every pair): rank correlation of the agents (Spearman, Kendall tau-b, with bootstrap intervals over matched profiles), the level shift per agent, and per-dialogue agreement on matched profiles (correlation of final emotions, share with the same outcome).",
    )
    .argument(
      "<users...>",
      "one argument per simulated user: LABEL=PATH[,PATH...] or a bare PATH; a path is a run directory (aeb run, aeb import sage), a dialogues.jsonl, a directory of SAGE *_result.jsonl files, or one result file. A bare PATH is labelled by its run.json simulator (or import.json), else its folder",
    )
    .option("-o, --out <dir>", "also write agreement.json, agreement.md and agreement.html (tables and charts) into DIR")
    .option("--seed <n>", "seed of the bootstrap intervals", seedValue, 1)
    .option("--resamples <n>", "bootstrap resamples per interval", positiveInteger, DEFAULT_AGREEMENT_RESAMPLES)
    .addHelpText(
      "after",
      "\nExamples:\n  aeb agreement ../shared/data/sage/cross-simulator/deepseek-v3 ../shared/data/sage/cross-simulator/gpt-4o --out runs/agreement\n  aeb agreement offline=runs/offline mistral=runs/llm-user\n  aeb agreement ds=runs/a/claude_result.jsonl,runs/a/gpt_result.jsonl gpt4o=runs/b\n",
    )
    .action(async (userArguments: string[], flags: AgreementFlags) => {
      if (userArguments.length < 2)
        throw new AebError(
          `agreement compares simulated users: give at least two (got ${userArguments.length}), e.g. aeb agreement A=runs/a B=runs/b`,
        );
      const users = userArguments.map((argument) => loadSimulatedUser(parseSimulatedUserArgument(argument)));
      for (const user of users) {
        for (const line of user.skipped) console.error(describeSkippedLine(line));
        if (user.skipped.length > 0)
          console.error(`skipped ${user.skipped.length} malformed line(s) of ${user.label}'s files; the rest is compared`);
        for (const note of user.readingNotes) console.error(`note (${user.label}): ${note}`);
      }
      const report = agreementReport(users, { seed: flags.seed, resamples: flags.resamples });
      const agentsOf = (label: string) => report.users.find((user) => user.label === label)?.agents.join(", ") || "none";
      const disjoint = report.pairs.filter((pair) => pair.sharedAgents.length === 0);
      // Nothing to compare at all: an empty table with exit 0 would read as agreement measured.
      if (disjoint.length === report.pairs.length) {
        const named = disjoint.map((pair) => `${pair.a} has ${agentsOf(pair.a)}; ${pair.b} has ${agentsOf(pair.b)}`).join(". ");
        throw new AebError(
          `the simulated users share no agent, so there is no agreement to measure (agents are matched by condition name). ${named}. Give runs of the same agents under each simulated user: the same conditions, e.g. one run config run once with the offline user and once with simulator: {kind: llm, ...}`,
        );
      }
      for (const pair of disjoint)
        console.error(
          `warning: ${pair.a} and ${pair.b} share no agent (${pair.a} has ${agentsOf(pair.a)}; ${pair.b} has ${agentsOf(pair.b)}): that pair is not compared`,
        );
      console.log(renderAgreementText(report));
      if (flags.out !== undefined) {
        const paths = await writeAgreementFiles(flags.out, report);
        console.log(`\nwrote ${paths.join(", ")}`);
      }
    });
}
