import { Command, CommanderError } from "commander";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { ModelCallError } from "../llm/errors.js";
import { describeFileSystemError } from "../record/write-error.js";
import { setInvocationArgs } from "./invocation.js";
import { registerRunCommand } from "./commands/run.js";
import { registerScenariosCommand } from "./commands/scenarios.js";
import { registerReportCommand } from "./commands/report.js";
import { registerCompareCommand } from "./commands/compare.js";
import { registerJudgeCommand } from "./commands/judge.js";
import { registerMockLlmCommand } from "./commands/mock-llm.js";
import { registerImportCommand } from "./commands/import.js";
import { registerLeaderboardCommand } from "./commands/leaderboard.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerPromptsCommand } from "./commands/prompts.js";
import { registerExportCommand } from "./commands/export.js";
import { registerChatCommand } from "./commands/chat.js";
import { registerViewCommand } from "./commands/view.js";
import { registerAgreementCommand } from "./commands/agreement.js";

const version = (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;

export function buildProgram(): Command {
  const program = new Command()
    .name("aeb")
    .description("AEB, the Adversarial Empathy Benchmark: run empathetic LLMs against simulated users who do not cooperate.")
    .version(version)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerRunCommand(program);
  registerScenariosCommand(program);
  registerReportCommand(program);
  registerCompareCommand(program);
  registerJudgeCommand(program);
  registerMockLlmCommand(program);
  registerImportCommand(program);
  registerLeaderboardCommand(program);
  registerAgreementCommand(program);
  registerServeCommand(program);
  registerPromptsCommand(program);
  registerExportCommand(program);
  registerChatCommand(program);
  registerViewCommand(program);
  return program;
}

/**
 * The CLI boundary: user errors print one clear line and exit non-zero, never a stack trace.
 * Returns the exit code (commands set `process.exitCode` for results such as dialogues in error);
 * `argv` is as `process.argv` (node, script, then the arguments).
 */
export async function main(argv: string[]): Promise<number> {
  setInvocationArgs(argv.slice(2));
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    // A user can fix these: a bad file, flag or config, or a model endpoint that is misconfigured or unreachable.
    if (AebError.isInstance(error) || ModelCallError.isInstance(error)) {
      console.error(`aeb: ${error.message}`);
      return 1;
    }
    // A full disk, a read-only mount, a missing permission: the user's to fix, named with the file.
    const fileSystem = describeFileSystemError(error);
    if (fileSystem !== undefined) {
      console.error(`aeb: ${fileSystem}`);
      return 1;
    }
    console.error(`aeb: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.AEB_DEBUG) console.error(error);
    else console.error("(set AEB_DEBUG=1 for the stack trace; please report this)");
    return 1;
  }
}
