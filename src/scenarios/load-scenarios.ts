import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import { formatIssues, ScenarioError } from "../core/errors.js";
import { ADVERSARIAL_TYPES, TrajectoryTypeSchema, type TrajectoryType } from "../core/trajectory-type.js";
import { packageRoot } from "../core/data-files.js";
import { ScenarioSchema, type Scenario } from "./scenario-schema.js";

/** The scenario suites shipped with the package. */
export const BUILTIN_SCENARIO_DIR = join(packageRoot, "scenarios");

/** Parses and validates one scenario YAML text; errors name the file and the field. */
export function parseScenario(text: string, file: string): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ScenarioError(`${file}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) throw new ScenarioError(`${file}: invalid scenario:\n${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

function yamlFilesUnder(path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new ScenarioError(`scenario path ${path} does not exist`);
  if (stat.isFile()) return [path];
  const files: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) files.push(...yamlFilesUnder(full));
    else if ([".yaml", ".yml"].includes(extname(entry.name))) files.push(full);
  }
  return files;
}

/**
 * Loads every scenario file under a directory (or one file), checks ids are unique, and
 * returns them sorted by id so runs do not depend on directory order.
 */
export function loadScenarioDirectory(path: string): Scenario[] {
  const scenarios: Scenario[] = [];
  const seen = new Map<string, string>();
  for (const file of yamlFilesUnder(path)) {
    const display = relative(process.cwd(), file) || basename(file);
    const scenario = parseScenario(readFileSync(file, "utf8"), display);
    const previous = seen.get(scenario.id);
    if (previous !== undefined) throw new ScenarioError(`duplicate scenario id "${scenario.id}" in ${display} and ${previous}`);
    seen.set(scenario.id, display);
    scenarios.push(scenario);
  }
  if (scenarios.length === 0) throw new ScenarioError(`no scenario files (*.yaml) under ${path}`);
  return scenarios.sort((a, b) => a.id.localeCompare(b.id));
}

/** Levenshtein distance (insertions, deletions, substitutions), for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_unused, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length] as number;
}

/** Parses a `--types` list, naming any unknown type. */
export function parseTypeList(list: string): TrajectoryType[] {
  const types = list.split(",").map((item) => item.trim()).filter(Boolean);
  for (const type of types) {
    if (!TrajectoryTypeSchema.safeParse(type).success) {
      throw new ScenarioError(`unknown trajectory type "${type}" (known: ${[...ADVERSARIAL_TYPES, "cooperative"].join(", ")})`);
    }
  }
  return types as TrajectoryType[];
}

export function filterScenarios(scenarios: Scenario[], filter: { types?: TrajectoryType[]; suite?: string; ids?: string[] }): Scenario[] {
  const suites = [...new Set(scenarios.map((scenario) => scenario.suite).filter((suite): suite is string => suite !== undefined))].sort();
  if (filter.suite !== undefined && !suites.includes(filter.suite)) {
    throw new ScenarioError(`unknown suite "${filter.suite}" (known: ${suites.join(", ") || "none: these scenarios name no suite"})`);
  }
  const unknownIds = (filter.ids ?? []).filter((id) => !scenarios.some((scenario) => scenario.id === id));
  if (unknownIds.length > 0) {
    const near = unknownIds.flatMap((id) =>
      scenarios
        .map((scenario) => ({ id: scenario.id, distance: editDistance(id, scenario.id) }))
        .filter((candidate) => candidate.distance <= Math.max(2, Math.floor(id.length / 4)))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3)
        .map((candidate) => candidate.id),
    );
    throw new ScenarioError(`unknown scenario id(s): ${unknownIds.join(", ")}${near.length > 0 ? ` (did you mean ${[...new Set(near)].join(", ")}?)` : ""}; \`aeb scenarios list\` lists them`);
  }
  const selected = scenarios.filter(
    (scenario) =>
      (filter.types === undefined || filter.types.includes(scenario.type)) &&
      (filter.suite === undefined || scenario.suite === filter.suite) &&
      (filter.ids === undefined || filter.ids.includes(scenario.id)),
  );
  if (selected.length === 0) {
    const asked = [filter.suite !== undefined ? `suite ${filter.suite}` : "", filter.types !== undefined ? `types ${filter.types.join(", ")}` : "", filter.ids !== undefined ? `ids ${filter.ids.join(", ")}` : ""].filter(Boolean).join(" and ");
    throw new ScenarioError(`no scenario matches ${asked || "the selection"} (check --suite, --types, --scenario and --scenarios; \`aeb scenarios list\` lists them)`);
  }
  return selected;
}
