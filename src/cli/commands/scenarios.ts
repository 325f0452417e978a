import type { Command } from "commander";
import { filterScenarios, parseTypeList } from "../../scenarios/load-scenarios.js";
import { loadScenarioSource } from "../../scenarios/scenario-source.js";
import { textTable } from "../../report/format.js";
import { validateSuite } from "../../simulated-user/validate-suite.js";
import { positiveInteger } from "../options.js";

export function registerScenariosCommand(program: Command): void {
  const scenarios = program.command("scenarios").description("List and lint scenario suites.");
  scenarios
    .command("list")
    .description("List scenarios (id, type, suite, preset, title).")
    .option("--scenarios <path>", "scenario directory or file, or sage:PATH / rlver:PATH (default: the built-in suites)")
    .option("--suite <name>", "only this suite")
    .option("--types <list>", "comma-separated trajectory types")
    .action((flags: { scenarios?: string; suite?: string; types?: string }) => {
      const all = loadScenarioSource(flags.scenarios).scenarios;
      const selected = filterScenarios(all, { suite: flags.suite, types: flags.types ? parseTypeList(flags.types) : undefined });
      console.log(
        textTable(
          ["id", "type", "suite", "preset", "title"],
          selected.map((s) => [s.id, s.type, s.suite, s.preset, s.title]),
        ),
      );
      console.log(`\n${selected.length} scenario(s)`);
    });
  scenarios
    .command("validate")
    .description("Lint a suite: schema, unique ids, counts per type, hidden intention not leaked in the opening, rubric items reachable.")
    .option("--scenarios <path>", "scenario directory or file, or sage:PATH / rlver:PATH (default: the built-in suites)")
    .option("--suite <name>", "only this suite")
    .option("--per-type <n>", "required scenarios per adversarial type (e.g. 10 for the full suite)", positiveInteger)
    .action((flags: { scenarios?: string; suite?: string; perType?: number }) => {
      const all = loadScenarioSource(flags.scenarios).scenarios;
      const selected = flags.suite ? filterScenarios(all, { suite: flags.suite }) : all;
      const report = validateSuite(selected, { perType: flags.perType });
      for (const line of report.lines) console.log(line);
      if (report.problems.length > 0) {
        for (const problem of report.problems) console.error(`problem: ${problem}`);
        process.exitCode = 1;
      } else {
        console.log(`\nok: ${selected.length} scenario(s) pass`);
      }
    });
}
