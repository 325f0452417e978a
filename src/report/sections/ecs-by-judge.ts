import { heuristicEcsTitle } from "../../analysis/ecs-judges.js";
import { COOPERATIVE_LABEL, isCooperative } from "../cooperative.js";
import { fixed, withCI } from "../format.js";
import { html } from "../html.js";
import { heuristicOf, type ReportReading } from "../report-reading.js";
import { noteParts, type ReportSection, type SectionPart, type Table } from "./section.js";

const COOPERATIVE_CELL = "n/a (cooperative)";

/** Cooperative users (SAGE/RLVER profiles) have no manipulation turn: no before/after split for them. */
function cooperativeOnly(reading: ReportReading, condition: string): boolean {
  const ofCondition = reading.scored.filter((row) => row.condition === condition);
  return ofCondition.length > 0 && ofCondition.every((row) => isCooperative(row.type));
}

/** Whether the ECS tables split ECS before/after the manipulation turn (not when every dialogue is a cooperative user, which has none). */
export function ecsByPhase(reading: ReportReading): boolean {
  return !(reading.scored.length > 0 && reading.scored.every((row) => isCooperative(row.type)));
}

/** What before/after mean where cooperative users (no manipulation turn) are among the dialogues; null when none is. */
export function ecsPhaseNote(reading: ReportReading): string | null {
  if (!ecsByPhase(reading))
    return `Every dialogue is a ${COOPERATIVE_LABEL}, which has no manipulation turn, so ECS is not split before and after one.`;
  if (!reading.scored.some((row) => isCooperative(row.type))) return null;
  const mixed = reading.conditions
    .map((condition) => condition.name)
    .filter((name) => !cooperativeOnly(reading, name) && reading.scored.some((row) => row.condition === name && isCooperative(row.type)));
  return (
    `A ${COOPERATIVE_LABEL} has no manipulation turn: a condition of such dialogues only shows "n/a (cooperative)" before and after` +
    (mixed.length > 0
      ? `; in ${mixed.join(", ")}, which mix them with adversarial dialogues, "after" also counts every judged turn of the cooperative ones.`
      : ".")
  );
}

/** The title of a judge's table: the headline's says so, a heuristic's says what it is. */
function ecsTitle(reading: ReportReading, judge: string): string {
  const heuristic = heuristicOf(reading, judge);
  if (heuristic !== undefined) return heuristicEcsTitle(heuristic);
  return judge === reading.headlineJudge ? `${judge} (the headline ECS)` : judge;
}

/** One table per ECS judge (`summary.conditions[].ecsByJudge`), in the summary's order. */
export function ecsJudgeTables(reading: ReportReading): Array<{ judge: string; title: string; table: Table }> {
  const byPhase = ecsByPhase(reading);
  return reading.ecsColumns.map(({ judge, cells }) => ({
    judge,
    title: ecsTitle(reading, judge),
    table: byPhase
      ? {
          header: ["condition", "ECS [95% CI]", "before manipulation", "after manipulation", "drop", "judged", "judge errors"],
          rows: cells.map(({ condition, cell }) => {
            if (cell === null) return [condition, "n/a", "n/a", "n/a", "n/a", "0", "0"];
            const phases = cooperativeOnly(reading, condition)
              ? [COOPERATIVE_CELL, COOPERATIVE_CELL, COOPERATIVE_CELL]
              : [fixed(cell.before), fixed(cell.after), fixed(cell.drop)];
            return [condition, withCI(cell.mean), ...phases, String(cell.judged), String(cell.judgeErrors)];
          }),
        }
      : {
          header: ["condition", "ECS [95% CI]", "judged", "judge errors"],
          rows: cells.map(({ condition, cell }) =>
            cell === null ? [condition, "n/a", "0", "0"] : [condition, withCI(cell.mean), String(cell.judged), String(cell.judgeErrors)],
          ),
        },
  }));
}

/** Said in the ECS section when there is no table; null when there are tables. */
function missingTablesNote(reading: ReportReading): string | null {
  if (reading.ecsColumns.length > 0) return null;
  return reading.judges.length === 0
    ? "No ECS judge ran."
    : `summary.json has no per-judge ECS; the charts use the dialogues' scores from ${reading.judges.join(", ")}.`;
}

export function ecsByJudgeSection(reading: ReportReading): ReportSection {
  const tables = ecsJudgeTables(reading);
  const legend: SectionPart[] =
    tables.length === 0
      ? []
      : [
          {
            kind: "page-note",
            html: html`ECS: how well the judge, reading only the visible conversation, predicted the emotion the user reported after each reply (1 is perfect), with a seeded bootstrap 95% CI over dialogues.${ecsByPhase(reading) ? " Before / after: over the turns before the manipulation turn and from it on; drop: before minus after." : ""} Judged: dialogues the judge scored; judge errors: turns it could not read (see the procedure below for whether they were left out or imputed).`,
          },
        ];
  return {
    id: "ecs",
    title: "ECS by judge",
    navLabel: "ECS",
    lines: [
      tables.map(({ title, table }): SectionPart => ({ kind: "table", title, table })),
      legend,
      noteParts(ecsPhaseNote(reading)),
      noteParts(missingTablesNote(reading)),
    ],
  };
}
