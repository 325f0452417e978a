/**
 * A SAGE-style leaderboard over AEB results directories and SAGE result files: per condition the
 * Sentient score (mean final emotion), successes and failures as SAGE counts them, beside FS,
 * collapse rate and a model judge's ECS as this project's metrics compute them.
 *
 * Scores are comparable only within one simulated user, so every row names the simulated user
 * that scored it (interop/simulated-users.ts) and rows are ranked within their simulated user
 * only: one group per simulated user, the ranking restarting in each.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { summariseCondition } from "../analysis/condition-summary.js";
import { classifyEcsJudges } from "../analysis/ecs-judges.js";
import { judgesOf } from "../analysis/run-summary.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { AebError } from "../core/errors.js";
import { mean } from "../metrics/dialogue-metrics.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import { readDialogueRecords } from "../record/dialogue-reader.js";
import { DIALOGUES_FILE } from "../record/files.js";
import { fixed, markdownTable, NO_MODEL_JUDGE, percent, textTable } from "../report/format.js";
import { readSageResultFile, type SkippedLine } from "./sage-results.js";
import { simulatedUsersOfDirectory, simulatorOfSageFolder } from "./simulated-users.js";

/** SAGE's success: final emotion at or above this. */
export const SAGE_SUCCESS_AT = 100;
/** SAGE's failure: final emotion below this. */
export const SAGE_FAILURE_BELOW = 10;
/** What the ECS column says when no ECS judge scored the dialogues. */
export const ECS_NOT_JUDGED = "n/a (no ECS judge)";

export interface LeaderboardRow {
  /** The simulated user that scored the condition (interop/simulated-users.ts). */
  simulatedUser: string;
  /** Place among the rows of the same simulated user (1 = best Sentient score; equal scores share a place, the next skips: 1, 1, 3); never across simulated users. */
  rank: number;
  condition: string;
  /** The directory or file the row comes from. */
  source: string;
  /** Scored dialogues (status `done`). */
  dialogues: number;
  /** Dialogues that ended in error, left out of every number. */
  errors: number;
  /** Mean final emotion (0-100). */
  sentient: number;
  successes: number;
  failures: number;
  /** This project's FS: mean final emotion / 100. */
  fs: number | null;
  /** This project's collapse rate: dialogues that ended in `collapse` under their preset. */
  collapseRate: number | null;
  /** Mean ECS of the results' headline ECS judge (a model judge); null without one. */
  ecs: number | null;
  /** The model judge of `ecs`; null when no model judge scored the dialogues. */
  ecsJudge: string | null;
  /** Whether only heuristic ECS judges (the offline lexicon baseline) scored the dialogues: their ECS is never shown here. */
  heuristicEcsOnly: boolean;
}

export interface LeaderboardSource {
  source: string;
  records: DialogueRecord[];
  /** Lines of a SAGE result file that did not parse (they are left out and counted). */
  skipped: SkippedLine[];
  /** The simulated user of each condition. */
  simulatedUser: (condition: string) => string;
}

/**
 * Reads one leaderboard input: a results directory (its `dialogues.jsonl`), a `dialogues.jsonl`
 * file, or a SAGE result file (any other file), which becomes one condition named after it. The
 * simulated user comes from run.json or import.json, or, for a SAGE result file, from `simulator`
 * (a `--simulator` flag) or the file's folder; `simulator` also names it where nothing records it.
 */
export function readLeaderboardSource(path: string, options: { simulator?: string } = {}): LeaderboardSource {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new AebError(`${path} does not exist`);
  if (stat.isDirectory()) {
    if (!existsSync(join(path, DIALOGUES_FILE)))
      throw new AebError(
        `${path} has no ${DIALOGUES_FILE} (give a results directory of \`aeb run\` or \`aeb import\`, or a SAGE result file)`,
      );
    const users = simulatedUsersOfDirectory(path, options.simulator);
    return { source: path, records: readDialogueRecords(path).records, skipped: [], simulatedUser: users.of };
  }
  if (basename(path) === DIALOGUES_FILE) {
    const users = simulatedUsersOfDirectory(dirname(path), options.simulator);
    return { source: path, records: readDialogueRecords(dirname(path)).records, skipped: [], simulatedUser: users.of };
  }
  const file = readSageResultFile(path);
  const simulator = options.simulator ?? simulatorOfSageFolder(path);
  return { source: path, records: file.records, skipped: file.skipped, simulatedUser: () => simulator };
}

/** One row per condition of the records, in order of first appearance (ranked 1 until {@link buildLeaderboard} ranks them). */
export function leaderboardRows(
  records: readonly DialogueRecord[],
  source: string,
  simulatedUser: (condition: string) => string = () => "unknown",
): LeaderboardRow[] {
  const conditions = [...new Set(records.map((record) => record.condition))];
  return conditions.map((condition) => {
    // In id order, as summary.json sums them, so FS matches the run's report to the last digit.
    const own = records.filter((record) => record.condition === condition).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const scored = own.filter((record) => record.status === "done");
    const finals = scored.map((record) => record.final.emotion);
    const rows = own.map(dialogueRow);
    const judges = judgesOf(own);
    // Only a model judge's ECS: the offline lexicon baseline never reads the agent's reply.
    const kinds = classifyEcsJudges(rows, judges.ecs);
    const summary = summariseCondition(condition, rows, 1, { ...judges, headlineEcs: kinds.headline });
    return {
      simulatedUser: simulatedUser(condition),
      rank: 1,
      condition,
      source,
      dialogues: scored.length,
      errors: own.length - scored.length,
      sentient: mean(finals),
      successes: finals.filter((emotion) => emotion >= SAGE_SUCCESS_AT).length,
      failures: finals.filter((emotion) => emotion < SAGE_FAILURE_BELOW).length,
      fs: summary.fs.mean,
      collapseRate: summary.collapseRate,
      ecs: summary.ecs?.mean ?? null,
      ecsJudge: kinds.headline,
      heuristicEcsOnly: kinds.headline === null && kinds.heuristics.length > 0,
    };
  });
}

/**
 * Rows of every source, grouped by simulated user (groups in the order the inputs first name
 * them), best Sentient score first within each group and ranked within it: rows with the same
 * score share a rank and the next rank skips (1, 1, 3), as a tie is no order. A name that repeats
 * within one simulated user gets its source.
 */
export function buildLeaderboard(sources: readonly LeaderboardSource[]): LeaderboardRow[] {
  const rows = sources.flatMap((source) => leaderboardRows(source.records, source.source, source.simulatedUser));
  const counts = new Map<string, number>();
  const key = (row: LeaderboardRow) => `${row.simulatedUser}\u0000${row.condition}`;
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  const score = (row: LeaderboardRow) => (Number.isNaN(row.sentient) ? -1 : row.sentient);
  const groups = [...new Set(rows.map((row) => row.simulatedUser))];
  return groups.flatMap((group) =>
    rows
      .filter((row) => row.simulatedUser === group)
      .map((row) => ((counts.get(key(row)) ?? 0) > 1 ? { ...row, condition: `${row.condition} (${row.source})` } : row))
      .sort((a, b) => score(b) - score(a) || a.condition.localeCompare(b.condition))
      .map((row, index, sorted) => ({ ...row, rank: sorted.findIndex((other) => score(other) === score(row)) + 1 })),
  );
}

export const LEADERBOARD_HEADER = [
  "simulated user",
  "rank",
  "condition",
  "dialogues",
  "Sentient",
  "successes",
  "failures",
  "FS",
  "collapse",
  "ECS",
];

function ecsCell(row: LeaderboardRow): string {
  if (row.ecs !== null) return fixed(row.ecs, 3);
  if (row.heuristicEcsOnly) return NO_MODEL_JUDGE;
  return row.ecsJudge === null ? ECS_NOT_JUDGED : "n/a (no turn judged)";
}

function cells(row: LeaderboardRow): string[] {
  return [
    row.simulatedUser,
    String(row.rank),
    row.condition,
    row.errors > 0 ? `${row.dialogues} (+${row.errors} errors)` : String(row.dialogues),
    fixed(row.sentient, 2),
    String(row.successes),
    String(row.failures),
    fixed(row.fs, 3),
    percent(row.collapseRate),
    ecsCell(row),
  ];
}

/** What the columns mean, and why rows are grouped; said under every leaderboard. */
export function leaderboardNotes(rows: readonly LeaderboardRow[]): string[] {
  const groups = [...new Set(rows.map((row) => row.simulatedUser))];
  const tied = groups.some((group) => {
    const ranks = rows.filter((row) => row.simulatedUser === group).map((row) => row.rank);
    return new Set(ranks).size < ranks.length;
  });
  return [
    groups.length > 1
      ? `${groups.length} simulated users (${groups.join(", ")}): each row is ranked only against rows scored by the same simulated user, and the ranking restarts in each group. Scores from different simulated users are not comparable (the simulator alone moves a model's score; aeb agreement measures how far two simulated users agree).`
      : `One simulated user (${groups[0] ?? "none"}); scores from another simulated user would not be comparable with these and would be ranked apart.`,
    "Simulated user: run.json's simulator for aeb run (offline, or the LLM user's model and prompt pack), import.json for aeb import sage, else the SAGE result file's folder (results-X-simulator -> X) or --simulator.",
    `Sentient: mean final emotion (0-100); successes: final >= ${SAGE_SUCCESS_AT}; failures: final < ${SAGE_FAILURE_BELOW} (SAGE's definitions).`,
    "FS: mean final emotion / 100; collapse: share of dialogues that ended in collapse under their preset (this project's metrics).",
    ...(tied
      ? ["Rank: rows with the same Sentient score share a rank, and the next rank skips (1, 1, 3); tied rows are listed by name."]
      : []),
    `ECS: a model judge's only (the results' first ECS judge that is a model); ${NO_MODEL_JUDGE} where only a heuristic scored the dialogues (the offline lexicon baseline reads the user's messages only), ${ECS_NOT_JUDGED} where no ECS judge ran.`,
  ];
}

export function renderLeaderboard(rows: readonly LeaderboardRow[], format: "text" | "markdown" | "json"): string {
  if (format === "json") return JSON.stringify(rows, null, 2);
  const table = format === "markdown" ? markdownTable(LEADERBOARD_HEADER, rows.map(cells)) : textTable(LEADERBOARD_HEADER, rows.map(cells));
  return `${table}\n\n${leaderboardNotes(rows).join("\n")}`;
}
