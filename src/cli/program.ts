import { Command, CommanderError } from "commander";
import { readFileSync } from "node:fs";
import { AebError } from "../core/errors.js";
import { ModelCallError } from "../llm/errors.js";
import { describeFileSystemError } from "../record/write-error.js";
import { setInvocationArgs } from "./invocation.js";
type RegisterCommand = (program: Command) => void;

/**
 * Every command, in the order `aeb --help` lists them, with the module that defines it. A command's
 * module (and what it imports: vega, fastify, undici, the openai SDK) is loaded only when that
 * command runs, so `aeb --version` and `aeb scenarios list` do not pay for the others.
 */
const COMMANDS: ReadonlyArray<{ name: string; load: () => Promise<RegisterCommand> }> = [
  { name: "run", load: async () => (await import("./commands/run.js")).registerRunCommand },
  { name: "scenarios", load: async () => (await import("./commands/scenarios.js")).registerScenariosCommand },
  { name: "report", load: async () => (await import("./commands/report.js")).registerReportCommand },
  { name: "compare", load: async () => (await import("./commands/compare.js")).registerCompareCommand },
  { name: "judge", load: async () => (await import("./commands/judge.js")).registerJudgeCommand },
  { name: "mock-llm", load: async () => (await import("./commands/mock-llm.js")).registerMockLlmCommand },
  { name: "import", load: async () => (await import("./commands/import.js")).registerImportCommand },
  { name: "leaderboard", load: async () => (await import("./commands/leaderboard.js")).registerLeaderboardCommand },
  { name: "agreement", load: async () => (await import("./commands/agreement.js")).registerAgreementCommand },
  { name: "probe", load: async () => (await import("./commands/probe.js")).registerProbeCommand },
  { name: "serve", load: async () => (await import("./commands/serve.js")).registerServeCommand },
  { name: "prompts", load: async () => (await import("./commands/prompts.js")).registerPromptsCommand },
  { name: "export", load: async () => (await import("./commands/export.js")).registerExportCommand },
  { name: "chat", load: async () => (await import("./commands/chat.js")).registerChatCommand },
  { name: "view", load: async () => (await import("./commands/view.js")).registerViewCommand },
];

export const COMMAND_NAMES: readonly string[] = COMMANDS.map((command) => command.name);

/**
 * The commands `args` (the arguments after the script) needs: the one it names, or every command
 * when it names none that exists (`aeb --help`, `aeb help run`, a typo that should get "did you
 * mean"). `--version` needs none.
 */
export function commandsNeeded(args: readonly string[]): readonly string[] {
  const first = args.find((arg) => !arg.startsWith("-"));
  if (first === undefined && args.some((arg) => arg === "--version" || arg === "-V")) return [];
  return first !== undefined && COMMAND_NAMES.includes(first) ? [first] : COMMAND_NAMES;
}

// Read beside this module (src/cli or dist/cli), not through core/data-files, whose YAML parser
// would double the start-up time of `aeb --version`.
const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** The `aeb` program with the commands named in `names` (every command by default). */
export async function buildProgram(names: readonly string[] = COMMAND_NAMES): Promise<Command> {
  const program = new Command()
    .name("aeb")
    .description("AEB, the Adversarial Empathy Benchmark: run empathetic LLMs against simulated users who do not cooperate.")
    .version(version)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  for (const command of COMMANDS) {
    if (names.includes(command.name)) (await command.load())(program);
  }
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
    await (await buildProgram(commandsNeeded(argv.slice(2)))).parseAsync(argv);
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
