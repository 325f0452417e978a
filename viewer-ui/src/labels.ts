/**
 * Names and colours the viewer gives a run's things, the same on every page: the simulated user's
 * HID (under the offline user it is the reward's own move test, and says so), the ECS judges (a
 * heuristic such as the lexicon baseline is never called ECS), and one colour per condition and
 * per judge for every chart and legend.
 */
import type { RunList } from "./api.js";

/** What a run calls things; from `GET /api/runs` (src/viewer/report-page.ts decides them). */
export interface RunLabels {
  hidLabel: string;
  /** Heuristic ECS judges by name, each with what it is ("ECS lexicon baseline"). */
  heuristicEcsJudges: Record<string, string>;
}

const PLAIN: RunLabels = { hidLabel: "HID", heuristicEcsJudges: {} };

export function labelsOf(runs: RunList, run: number): RunLabels {
  const entry = runs.runs.find((candidate) => candidate.run === run);
  return entry === undefined ? PLAIN : { hidLabel: entry.hidLabel, heuristicEcsJudges: entry.heuristicEcsJudges };
}

/** A judge's name, with what it is when it is a heuristic: "offline-lexicon (ECS lexicon baseline, not a model judge)". */
export function judgeLabel(name: string, labels: RunLabels): string {
  const heuristic = labels.heuristicEcsJudges[name];
  return heuristic === undefined ? name : `${name} (${heuristic}, not a model judge)`;
}

/** The label of the HID column of a table over several runs: the offline label when every run's HID is the move test, a mixed one when some are. */
export function hidColumnLabel(runs: RunList): string {
  const labels = new Set(runs.runs.map((run) => run.hidLabel));
  if (labels.size === 1) return [...labels][0] as string;
  return labels.has("HID (offline: move test)") ? "HID (offline runs: move test)" : "HID";
}

/** Conditions' colours: Tableau 10, in the runs' condition order, as the report's charts colour them. */
const CONDITION_COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
/** Judges' colours (drawn dashed): darker hues, apart from the conditions'. */
const JUDGE_COLOURS = ["#3b3b3b", "#7b3294", "#1b7837", "#a6611a", "#0571b0", "#c51b7d", "#5e3c99", "#8c510a"];

/** One colour per condition and per judge, fixed for the whole viewer: by their place in the runs' facets, so columns and runs agree. */
export interface Colours {
  condition: (name: string) => string;
  judge: (name: string) => string;
}

function byPosition(names: readonly string[], palette: readonly string[]): (name: string) => string {
  const at = new Map(names.map((name, index) => [name, palette[index % palette.length] as string]));
  return (name) => at.get(name) ?? (palette[0] as string);
}

export function coloursOf(runs: RunList): Colours {
  return { condition: byPosition(runs.facets.conditions, CONDITION_COLOURS), judge: byPosition(runs.facets.ecsJudges, JUDGE_COLOURS) };
}
