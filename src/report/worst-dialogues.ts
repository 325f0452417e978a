/**
 * Which dialogues the reports show with text: the lowest-FS scored ones of each condition. Their
 * ids are known from the rows alone, so only these few full records are read (see {@link transcriptIds}).
 */
import type { DialogueRecord } from "../core/dialogue.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import { sortedById, type DialogueRow } from "../metrics/dialogue-row.js";
import type { ReportInput } from "./report-reading.js";

/** How many of the lowest-FS dialogues per condition the reports print. */
export const WORST_PER_CONDITION = 3;

/** The lowest-FS scored dialogues of each condition (ties broken by id), worst first. */
export function worstRows(
  rows: readonly DialogueRow[],
  conditions: readonly string[],
  count = WORST_PER_CONDITION,
): Array<{ condition: string; rows: DialogueRow[] }> {
  // The lowest `count` kept while scanning (what a stable sort then a slice gives: a later row goes
  // after the rows it ties with), not a sorted copy of every row of the condition.
  const worse = (a: DialogueRow, b: DialogueRow) => a.metrics.fs - b.metrics.fs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byCondition = new Map(conditions.map((condition) => [condition, [] as DialogueRow[]]));
  if (count > 0) {
    for (const row of rows) {
      if (row.status !== "done") continue;
      const worst = byCondition.get(row.condition);
      if (worst === undefined) continue;
      if (worst.length === count && worse(row, worst[count - 1] as DialogueRow) >= 0) continue;
      let at = worst.length;
      while (at > 0 && worse(row, worst[at - 1] as DialogueRow) < 0) at -= 1;
      worst.splice(at, 0, row);
      if (worst.length > count) worst.pop();
    }
  }
  return conditions.map((condition) => ({ condition, rows: byCondition.get(condition) ?? [] })).filter((group) => group.rows.length > 0);
}

/** Conditions in the summary's order, then those only the dialogues name (which the report notes). */
export function conditionsWithOrphans(summary: RunSummary, rows: readonly DialogueRow[]): { names: string[]; orphans: string[] } {
  const names = summary.conditions.map((condition) => condition.name);
  const orphans = [...new Set(rows.map((row) => row.condition))].filter((name) => !names.includes(name));
  return { names, orphans };
}

/**
 * The ids of the dialogues the reports show with text (the worst of each condition): the only
 * full records a report needs besides the rows.
 */
export function transcriptIds(summary: RunSummary, rows: readonly DialogueRow[]): Set<string> {
  const { names, orphans } = conditionsWithOrphans(summary, rows);
  return new Set(worstRows(sortedById(rows), [...names, ...orphans]).flatMap((group) => group.rows.map((row) => row.id)));
}

/** The full record of a dialogue the report shows with text; its absence is a caller's error, not the data's. */
export function transcriptOf(input: ReportInput, row: DialogueRow): DialogueRecord {
  const record = input.transcripts.get(row.id);
  if (record === undefined)
    throw new Error(`the report shows dialogue ${row.id} with its transcript, but its record was not provided (see transcriptIds)`);
  return record;
}
