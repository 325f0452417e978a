/**
 * Which procedure produced the dialogues, as the reports state it: the dialogue loop of each
 * preset the dialogues ran under (its rules read from data/presets.yaml through core/preset.ts,
 * never restated here), the prompt pack of an LLM simulated user, what each ECS judge did with
 * the turns it could not read, and where the departures from SAGE, RLVER and the AEB paper are
 * listed (docs/fidelity.md). Numbers are comparable only between runs of the same procedure.
 */
import { loadPresets, maxAppraisedReplies, type Preset } from "../core/preset.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { defaultPackFor } from "../prompts/prompt-pack.js";

/** The document that compares every preset and prompt pack with its source. */
export const FIDELITY_DOC = "docs/fidelity.md";

/** A preset's loop in one line: "sage: 10 agent replies, the first 9 appraised; start 40, ...". */
export function presetLine(preset: Preset): string {
  const appraised = maxAppraisedReplies(preset);
  const replies = `${preset.maxTurns} agent replies, ${appraised === preset.maxTurns ? "all appraised" : `the first ${appraised} appraised (the last is recorded, not appraised)`}`;
  const change = preset.clamp === null ? "the change unclamped" : `the change clamped to ±${preset.clamp}`;
  const bound = preset.simulatorChangeBound === null ? "" : `, an LLM user's change beyond ±${preset.simulatorChangeBound} sent back`;
  const thresholds = [
    ...(preset.endsOn.includes("success") ? [`>= ${preset.success}`] : []),
    ...(preset.endsOn.includes("collapse") ? [`${preset.failure.op} ${preset.failure.value}`] : []),
  ];
  const ends = [
    ...(thresholds.length > 0 ? [`when the emotion is ${thresholds.join(" or ")}`] : []),
    ...(preset.endsOn.includes("user_left")
      ? [
          preset.goodbyeWords.length > 0
            ? `on a goodbye (${preset.goodbyeWords.join(", ")}) or when the user leaves`
            : "when the user leaves",
        ]
      : []),
  ];
  const ending = ends.length === 0 ? "never ends early (always the full turn limit)" : `ends early ${ends.join(", or ")}`;
  return `${preset.name}: ${replies}; start ${preset.start}, ${change}${bound}; ${ending}`;
}

/** The line of a preset name a dialogue carries; a name this version does not know is said to be one. */
function presetLineOf(name: string): string {
  const preset = loadPresets()[name];
  return preset === undefined
    ? `${name}: not a preset of this AEB version (data/presets.yaml has ${Object.keys(loadPresets()).join(", ")})`
    : presetLine(preset);
}

/**
 * One entry per preset the dialogues ran under: once for the run when every condition used it,
 * else with the conditions that did.
 */
export function presetEntries(rows: readonly DialogueRow[], conditions: readonly string[]): Array<[string, string]> {
  const presets = [...new Set(rows.map((row) => row.preset))].sort();
  return presets.map((name) => {
    const users = conditions.filter((condition) => rows.some((row) => row.condition === condition && row.preset === name));
    const everywhere = users.length === conditions.length;
    return [
      presets.length === 1 && everywhere ? "dialogue loop" : `dialogue loop ${name}`,
      `${presetLineOf(name)}${everywhere ? "" : ` (conditions ${users.join(", ")})`}`,
    ];
  });
}

/**
 * The LLM simulated user's prompt pack (run.json's `config.simulator.promptPack`), or each
 * preset's default pack when the config names none; null for any other simulated user.
 */
export function promptPackEntry(simulator: unknown, presets: readonly string[]): string | null {
  if (simulator === null || typeof simulator !== "object") return null;
  const fields = simulator as { kind?: unknown; promptPack?: unknown };
  if (fields.kind !== "llm") return null;
  const pack = fields.promptPack;
  if (typeof pack === "string") return pack;
  if (pack !== null && typeof pack === "object" && typeof (pack as { dir?: unknown }).dir === "string")
    return `a pack of the user's own, from ${(pack as { dir: string }).dir}`;
  const defaults = presets.map((preset) => `${defaultPackFor(preset)} for the ${preset} preset`);
  return `none named, so each preset's own: ${defaults.join(", ") || "none"}`;
}

/** What one ECS judge did with the turns it could not read, over the scored dialogues. */
export function unreadableTurnsEntry(judge: string, rows: readonly DialogueRow[]): string {
  // One pass, each row's ECS read once (a row builds its ECS object on every read; a list of every
  // dialogue's entry outlived young collections at 100,000 dialogues).
  let dialogues = 0;
  let unreadable = 0;
  let imputed = 0;
  let imputing = false;
  for (const row of rows) {
    if (row.status !== "done") continue;
    const entry = row.ecs[judge];
    if (entry === undefined) continue;
    dialogues += 1;
    unreadable += entry.errors;
    imputed += entry.imputed;
    if (entry.unreadableTurn === "impute-50") imputing = true;
  }
  const paper = "p=50, c=0, the AEB paper's option";
  if (unreadable === 0) return `no unreadable turn${imputing ? ` (configured to score one ${paper})` : ""}`;
  return `${unreadable} unreadable turn(s) over ${dialogues} dialogue(s): ${imputed} imputed (${paper}), ${unreadable - imputed} excluded from the scores`;
}
