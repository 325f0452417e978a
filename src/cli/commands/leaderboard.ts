import { InvalidArgumentError, type Command } from "commander";
import { buildLeaderboard, readLeaderboardSource, renderLeaderboard } from "../../interop/leaderboard.js";
import { displayName } from "../options.js";
import { describeSkippedLine } from "../skipped-line.js";

const FORMATS = ["text", "markdown", "json"] as const;
type LeaderboardFormat = (typeof FORMATS)[number];

function leaderboardFormat(value: string): LeaderboardFormat {
  if (!(FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${FORMATS.join(", ")}, got "${value}"`);
  return value as LeaderboardFormat;
}

export function registerLeaderboardCommand(program: Command): void {
  program
    .command("leaderboard")
    .description(
      "SAGE-style leaderboard: per condition the simulated user that scored it, the dialogues, Sentient score (mean final emotion), successes (>= 100), failures (< 10), FS, collapse rate and a model judge's ECS; ranked best first within each simulated user, never across them.",
    )
    .argument("<paths...>", "results directories (of aeb run or aeb import), dialogues.jsonl files, or SAGE result files")
    .option("--format <format>", "text, markdown or json", leaderboardFormat, "text" as LeaderboardFormat)
    .option(
      "--simulator <name>",
      "the simulated user (SAGE's simulator model) of the SAGE result files given, instead of their folder's name; also names it for a directory that records none",
      displayName,
    )
    .addHelpText(
      "after",
      "\nExamples:\n  aeb leaderboard ../shared/data/sage/results-deepseek-v3-simulator/*_result.jsonl runs/sage-offline\n  aeb leaderboard runs/sage-import runs/sage-offline --format markdown\n  aeb leaderboard my-results/*_result.jsonl --simulator gpt-4o\n",
    )
    .action((paths: string[], flags: { format: LeaderboardFormat; simulator?: string }) => {
      const sources = paths.map((path) => readLeaderboardSource(path, flags.simulator === undefined ? {} : { simulator: flags.simulator }));
      for (const source of sources) {
        for (const line of source.skipped) console.error(describeSkippedLine(line));
        if (source.skipped.length > 0) console.error(`skipped ${source.skipped.length} malformed line(s) of ${source.source}`);
      }
      console.log(renderLeaderboard(buildLeaderboard(sources), flags.format));
    });
}
