import type { Command } from "commander";
import { judgeRun } from "../../runner/judge-run.js";
import { loadRunConfig } from "../../runner/run-config.js";
import { readRunSetup } from "../../record/load-run.js";
import { renderTerminalSummary } from "../../report/terminal-summary.js";
import { positiveInteger } from "../options.js";
import { judgeFailureCount } from "../run-epilogue.js";

export function registerJudgeCommand(program: Command): void {
  program
    .command("judge")
    .description(
      "Judge a finished run afresh with the judges of a config (ECS, independent HID), without touching its dialogues. Results go to judgements.jsonl; summary.json and the reports are rewritten.",
    )
    .argument("<dir>", "run directory")
    .requiredOption("-c, --config <file>", "config whose `judges` (and `cache`) to use")
    .option("--concurrency <n>", "dialogues judged at once", positiveInteger, 8)
    .option(
      "--rejudge",
      "judge again, in full, dialogues a judge of the same name already judged (without it only what a judge never judged, or judged with failures, is judged)",
    )
    .action(async (dir: string, flags: { config: string; concurrency: number; rejudge?: boolean }) => {
      const config = loadRunConfig(flags.config);
      const result = await judgeRun({
        dir,
        config,
        concurrency: flags.concurrency,
        rejudge: flags.rejudge ?? false,
        command: "aeb judge",
        onWarning: (message) => console.error(`warning: ${message}`),
      });
      console.log(renderTerminalSummary(result.summary, readRunSetup(dir).setup?.simulator));
      const retried = result.retried > 0 ? `, ${result.retried} of them retrying judge calls that had failed` : "";
      console.log(
        `\njudged ${result.judged} dialogue(s)${retried} (${result.skipped} already judged, ${result.excluded} not judged: ${result.excludedReason || "none"}) -> ${dir}`,
      );
      const failures = judgeFailureCount(result.summary);
      if (failures > 0) {
        console.error(`${failures} judge call(s) failed (turns or verdicts left out); run the same command again to retry only those`);
        process.exitCode = 2;
      }
    });
}
