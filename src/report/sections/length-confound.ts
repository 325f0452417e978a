import { fixed, formatP } from "../format.js";
import { html } from "../html.js";
import type { ReportReading } from "../report-reading.js";
import { noteParts, type ReportSection, type Table } from "./section.js";

/** Per pair: the condition coefficient on FS without and with standardized reply length, and rho(length, FS) within each side. */
export function lengthConfoundTable(reading: ReportReading): Table | null {
  const rows = reading.summary.lengthConfound;
  if (rows.length === 0) return null;
  return {
    header: ["a", "b", "condition coef.", "p", "coef. adjusted for length", "p adjusted", "rho(length, FS) in a", "rho(length, FS) in b"],
    rows: rows.map((row) => [
      row.a,
      row.b,
      fixed(row.coefficient),
      formatP(row.p),
      fixed(row.coefficientAdjusted),
      formatP(row.pAdjusted),
      fixed(row.rhoA),
      fixed(row.rhoB),
    ]),
  };
}

export function lengthConfoundSection(reading: ReportReading): ReportSection {
  const table = lengthConfoundTable(reading);
  const legend = html`OLS of FS on a condition indicator (b vs a), without and with standardized reply length as covariate. A coefficient that shrinks toward 0 once length is in the model means length explains the gap. rho: Spearman correlation of reply length and FS within each condition.`;
  return {
    id: "length-confound",
    title: "Length confound",
    navLabel: "Length confound",
    lines:
      table === null
        ? [[], [], noteParts("The length-confound analysis in summary.json is empty (no pair of conditions to test).")]
        : [[{ kind: "table", table, textColumns: 2 }], [{ kind: "page-note", html: legend }], []],
  };
}
