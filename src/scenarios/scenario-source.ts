import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "./load-scenarios.js";
import { ConfigError } from "../core/errors.js";
import { loadProfileScenarios, parseProfileSource, type SkippedProfileLine } from "./sage-profiles.js";
import type { Scenario } from "./scenario-schema.js";

/**
 * Loads scenarios from any source a user can name: a directory or file of scenario YAML, or a
 * SAGE/RLVER profile file as `sage:PATH` / `rlver:PATH` (the cooperative suite). With
 * `skipInvalid`, invalid profile lines are skipped and returned so the caller can list them.
 */
export function loadScenarioSource(path: string | undefined, options: { skipInvalid?: boolean } = {}): { scenarios: Scenario[]; skipped: SkippedProfileLine[] } {
  const profiles = parseProfileSource(path);
  if (profiles === null) {
    if (options.skipInvalid === true) throw new ConfigError("--skip-invalid applies only to SAGE/RLVER profile files (--scenarios sage:PATH or rlver:PATH)");
    return { scenarios: loadScenarioDirectory(path ?? BUILTIN_SCENARIO_DIR), skipped: [] };
  }
  const loaded = loadProfileScenarios(profiles, { skipInvalid: options.skipInvalid });
  return { scenarios: loaded.scenarios, skipped: loaded.skipped };
}
