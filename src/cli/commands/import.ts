import type { Command } from "commander";
import { join } from "node:path";
import { importSageResults } from "../../interop/import-sage.js";
import { buildLeaderboard, renderLeaderboard } from "../../interop/leaderboard.js";
import { SageImportError } from "../../interop/sage-results.js";
import { renderReplay, replayFailures, replaySageResultFile } from "../../interop/sage-replay.js";
import { simulatedUsersOfDirectory } from "../../interop/simulated-users.js";
import { displayName } from "../options.js";
import { describeSkippedLine } from "../skipped-line.js";

interface ImportSageFlags {
  out?: string;
  strict?: boolean;
  force?: boolean;
  verify?: boolean;
  judge: boolean;
  simulator?: string;
}

export function registerImportCommand(program: Command): void {
  const imports = program.command("import").description("Import other benchmarks' results as an AEB results directory.");
  imports
    .command("sage")
    .description(
      "Convert SAGE result files (*_result.jsonl) into dialogues.jsonl, summary.json, report.md and report.html: one condition per file, scored by this project's metrics.",
    )
    .argument("<files...>", "SAGE result files; each becomes a condition named after the file without _result.jsonl")
    .option("-o, --out <dir>", "output directory (required unless --verify is given alone)")
    .option("--strict", "fail, importing nothing, if any line is malformed (default: skip it, report it, go on)")
    .option("--force", "replace the dialogues.jsonl of an earlier import in the directory")
    .option(
      "--verify",
      "replay every dialogue through the sage preset's episode machine with its recorded changes and check it reproduces each recorded emotion, where SAGE stopped and the final emotion; exit 1 if any does not (with --out, nothing is imported then)",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  aeb import sage ../shared/data/sage/results-deepseek-v3-simulator/*_result.jsonl --out runs/sage-import\n  aeb leaderboard runs/sage-import\n  aeb import sage ../shared/data/sage/results-deepseek-v3-simulator/*_result.jsonl --verify\n",
    )
    .option(
      "--no-judge",
      "do not score ECS with the offline lexicon judge (a heuristic baseline, shown under that name, never as the headline ECS)",
    )
    .option(
      "--simulator <name>",
      "the simulated user that scored the files (SAGE's simulator model), recorded in import.json; default: each file's folder name (results-deepseek-v3-simulator -> deepseek-v3)",
      displayName,
    )
    .action(async (files: string[], flags: ImportSageFlags) => {
      if (flags.verify === true) {
        const replays = [];
        for (const file of files) replays.push(await replaySageResultFile(file));
        console.log(renderReplay(replays, "sage"));
        const failures = replayFailures(replays);
        if (failures.dialogues > 0 || failures.lines > 0) {
          throw new SageImportError(
            `the sage preset does not reproduce ${failures.dialogues} dialogue(s)${failures.lines > 0 ? ` and cannot read ${failures.lines} line(s)` : ""}${flags.out !== undefined ? "; nothing imported" : ""}`,
          );
        }
        if (flags.out === undefined) return;
        console.log("");
      }
      if (flags.out === undefined) throw new SageImportError("--out DIR is required to import (or --verify to only check the files)");
      const result = await importSageResults(files, flags.out, {
        strict: flags.strict,
        force: flags.force,
        judge: flags.judge,
        ...(flags.simulator !== undefined ? { simulator: flags.simulator } : {}),
      });
      const skipped = result.files.flatMap((file) => file.skipped);
      for (const line of skipped) console.error(describeSkippedLine(line));
      if (skipped.length > 0) console.error(`skipped ${skipped.length} malformed line(s); the rest was imported (--strict fails instead)`);
      for (const file of result.files)
        console.log(
          `${file.file} -> condition ${file.condition}: ${file.records.length} dialogues${file.skipped.length > 0 ? `, ${file.skipped.length} line(s) skipped` : ""}`,
        );
      const simulatedUser = simulatedUsersOfDirectory(flags.out).of;
      console.log(
        `\n${renderLeaderboard(buildLeaderboard([{ source: flags.out, records: result.records, skipped, simulatedUser }]), "text")}`,
      );
      console.log(
        `\nfiles: ${join(flags.out, "dialogues.jsonl")}, ${join(flags.out, "summary.json")}, ${join(flags.out, "report.md")}, ${join(flags.out, "report.html")}`,
      );
    });
}
