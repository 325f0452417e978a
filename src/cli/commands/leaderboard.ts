import { InvalidArgumentError, type Command } from "commander";
import { buildLeaderboard, readLeaderboardSource, renderLeaderboard } from "../../interop/leaderboard.js";
import { describeSkippedLine } from "./import.js";

const FORMATS = ["text", "markdown", "json"] as const;
type LeaderboardFormat = (typeof FORMATS)[number];

function leaderboardFormat(value: string): LeaderboardFormat {
  if (!(FORMATS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${FORMATS.join(", ")}, got "${value}"`);
  return value as LeaderboardFormat;
}

export function registerLeaderboardCommand(program: Command): void {
  program
    .command("leaderboard")
    .description("SAGE-style leaderboard, best first: per condition the dialogues, Sentient score (mean final emotion), successes (>= 100), failures (< 10), FS, collapse rate and ECS.")
    .argument("<paths...>", "results directories (of aeb run or aeb import), dialogues.jsonl files, or SAGE result files")
    .option("--format <format>", "text, markdown or json", leaderboardFormat, "text" as LeaderboardFormat)
    .addHelpText("after", "\nExamples:\n  aeb leaderboard ../shared/data/sage/results-deepseek-v3-simulator/*_result.jsonl\n  aeb leaderboard runs/sage-import runs/sage-offline --format markdown\n")
    .action(async (paths: string[], flags: { format: LeaderboardFormat }) => {
      const sources = paths.map(readLeaderboardSource);
      for (const source of sources) {
        for (const line of source.skipped) console.error(describeSkippedLine(line));
        if (source.skipped.length > 0) console.error(`skipped ${source.skipped.length} malformed line(s) of ${source.source}`);
      }
      console.log(renderLeaderboard(await buildLeaderboard(sources), flags.format));
    });
}
