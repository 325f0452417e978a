import { getPreset, maxAppraisedReplies } from "../core/preset.js";
import { ADVERSARIAL_TYPES } from "../core/trajectory-type.js";
import { contentWords } from "../lexicon/content-words.js";
import { loadLexicon, type Lexicon, type Move } from "../lexicon/lexicon.js";
import { readReply } from "./read-reply.js";
import { rubricItemHolds } from "./evaluate-rubric.js";
import type { RubricItem } from "../scenarios/scenario-schema.js";
import { loadOfflineLines } from "./offline-lines.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf, rubricOf } from "../scenarios/type-defaults.js";

/** An opening sharing more than this fraction of the hidden intention's content words gives it away. */
export const MAX_INTENTION_OVERLAP = 0.34;

export interface SuiteReport {
  /** Summary lines for people (counts per type, persona diversity). */
  lines: string[];
  /** Problems that fail validation, each naming the scenario. */
  problems: string[];
}

/** Lints a suite beyond the schema: counts, leaks, reachability of every rubric item, script length. */
export function validateSuite(scenarios: readonly Scenario[], options: { perType?: number } = {}): SuiteReport {
  const problems: string[] = [];
  const lines: string[] = [];

  const byType = new Map<string, number>();
  for (const scenario of scenarios) byType.set(scenario.type, (byType.get(scenario.type) ?? 0) + 1);
  lines.push("scenarios per type:");
  for (const type of [...ADVERSARIAL_TYPES, "cooperative"]) {
    const count = byType.get(type) ?? 0;
    if (count > 0 || type !== "cooperative") lines.push(`  ${type.padEnd(28)} ${count}`);
    if (options.perType !== undefined && type !== "cooperative" && count !== options.perType) {
      problems.push(`${type}: ${count} scenario(s), expected ${options.perType}`);
    }
  }

  for (const scenario of scenarios) problems.push(...lintScenario(scenario));

  const ages = scenarios.map((scenario) => scenario.persona.age).filter((age): age is number => age !== undefined);
  const distinct = (values: Array<string | undefined>) =>
    new Set(values.filter((value): value is string => Boolean(value)).map((value) => value.toLowerCase())).size;
  lines.push("persona diversity:");
  lines.push(
    `  ages ${ages.length === 0 ? "n/a" : `${Math.min(...ages)}-${Math.max(...ages)}`} (median ${ages.length === 0 ? "n/a" : [...ages].sort((a, b) => a - b)[Math.floor(ages.length / 2)]})`,
  );
  const genders = new Map<string, number>();
  for (const scenario of scenarios) {
    const gender = scenario.persona.gender?.toLowerCase() ?? "unspecified";
    genders.set(gender, (genders.get(gender) ?? 0) + 1);
  }
  lines.push(`  genders ${[...genders.entries()].map(([gender, count]) => `${gender} ${count}`).join(", ")}`);
  lines.push(
    `  ${distinct(scenarios.map((scenario) => scenario.persona.culture))} distinct cultures, ${distinct(scenarios.map((scenario) => scenario.persona.occupation))} distinct occupations`,
  );
  return { lines, problems };
}

export function lintScenario(scenario: Scenario): string[] {
  const problems: string[] = [];
  const where = scenario.id;
  const lexicon = loadLexicon(scenario.language);

  if (scenario.opening === undefined) {
    // Only the cooperative profiles leave the first message to the simulated user (as RLVER does); an adversarial scenario's opening is part of its design.
    if (scenario.type !== "cooperative")
      problems.push(`${where}: no opening line (only SAGE/RLVER profiles may leave it to the simulated user)`);
  } else {
    const hidden = contentWords(scenario.hiddenIntention.text, lexicon);
    const opening = contentWords(scenario.opening, lexicon);
    const shared = [...hidden].filter((word) => opening.has(word));
    if (hidden.size > 0 && shared.length / hidden.size > MAX_INTENTION_OVERLAP) {
      problems.push(`${where}: the opening line gives away the hidden intention (shares ${shared.join(", ")})`);
    }
  }

  const preset = getPreset(scenario.preset);
  const manipulationTurn = manipulationTurnOf(scenario);
  const appraised = maxAppraisedReplies(preset);
  if (manipulationTurn >= appraised)
    problems.push(
      `${where}: manipulation turn ${manipulationTurn} is beyond the last appraised turn of preset ${preset.name} (${appraised - 1})`,
    );
  if (scenario.trait.script.length < Math.min(appraised, manipulationTurn + 2)) {
    problems.push(
      `${where}: the script has ${scenario.trait.script.length} line(s); it needs at least ${Math.min(appraised, manipulationTurn + 2)} to reach past the manipulation turn`,
    );
  }

  const lines = loadOfflineLines(scenario.language);
  for (const item of rubricOf(scenario)) {
    const required = new Set(item.all ?? []);
    const blocked = (item.none ?? []).filter(
      (move) => required.has(move) || ((item.any ?? []).length > 0 && (item.any ?? []).every((candidate) => candidate === move)),
    );
    if (blocked.length > 0) problems.push(`${where}: rubric item ${item.id} can never fire (requires and forbids ${blocked.join(", ")})`);
    if (item.phase === "before" && manipulationTurn === 0)
      problems.push(`${where}: rubric item ${item.id} is for turns before the manipulation turn, but that is turn 0`);
    if (lines.reactions[item.id] === undefined)
      problems.push(`${where}: rubric item ${item.id} has no reaction lines in data/offline-user/${scenario.language}.yaml`);
    if (blocked.length === 0 && !itemReachable(item, scenario, lexicon)) {
      problems.push(`${where}: rubric item ${item.id} cannot be reached: no reply built from the lexicon's example phrases makes it fire`);
    }
  }
  return problems;
}

/**
 * Proves a rubric item can fire: builds replies from the lexicon's example phrase of each required
 * move (and the scenario's own words where grounding is required), reads them as the offline user
 * does, and checks the item's condition holds for at least one of them.
 */
export function itemReachable(item: RubricItem, scenario: Scenario, lexicon: Lexicon): boolean {
  const required = item.all ?? [];
  const candidates: Array<Move | undefined> = item.any && item.any.length > 0 ? item.any : [undefined];
  const phase = item.phase === "after" || item.phase === "any" ? "after" : "before";
  return candidates.some((candidate) => {
    const moves = [...new Set([...required, ...(candidate === undefined ? [] : [candidate])])];
    const parts = moves.filter((move): move is Exclude<Move, "grounded"> => move !== "grounded").map((move) => lexicon.examples[move]);
    const keywords = scenario.cues.keywords;
    // Grounding quotes three of the user's words; any three will do (some words carry a move of
    // their own: "proposed, engaged" reads as congratulating), so each run of three is tried.
    const groundings = moves.includes("grounded")
      ? Array.from({ length: Math.max(1, keywords.length - 2) }, (_, start) => keywords.slice(start, start + 3)).map((words) =>
          lexicon.language === "zh" ? `你说到${words.join("、")}。` : `You said ${words.join(", ")}, and I heard it.`,
        )
      : [undefined];
    const userSaid = `${scenario.opening ?? scenario.topic} ${keywords.join(" ")}`;
    return groundings.some((grounding) => {
      const reply = [...parts, ...(grounding === undefined ? [] : [grounding])].join(" ");
      const reading = readReply(reply, { lexicon, userSaid, lastUser: userSaid });
      return rubricItemHolds(item, { heard: reading.moves, confident: reading.confidentMoves, possible: reading.possibleMoves }, phase);
    });
  });
}
