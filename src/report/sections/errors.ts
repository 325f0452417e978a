import type { RunSummary } from "../../analysis/summary-schema.js";
import type { ReportReading } from "../report-reading.js";
import type { ReportSection, Table } from "./section.js";

/** What the errors table is, under its heading in both reports. */
export const ERRORS_NOTE =
  "Dialogues that ended in error, by cause: the failure's kind and the stage of the turn it happened in, most frequent first, with the first such dialogue and its message. They are left out of every statistic; rerunning the same command retries them (a cause a rerun cannot help needs the fix its message names first).";

/** The errors-by-cause table of summary.json (`errorCauses`); null when no dialogue failed or the summary predates it. */
export function errorCausesTable(summary: RunSummary): Table | null {
  const causes = summary.errorCauses ?? [];
  if (causes.length === 0) return null;
  return {
    header: ["kind", "stage", "dialogues", "rerun can help", "example"],
    rows: causes.map((cause) => [
      cause.kind,
      cause.stage.replace("_", " "),
      String(cause.count),
      cause.retryable ? "yes" : "no",
      `${cause.example.dialogueId}: ${cause.example.message}`,
    ]),
  };
}

/** Shown only when dialogues ended in error. */
export function errorsSection(reading: ReportReading): ReportSection {
  const table = errorCausesTable(reading.summary);
  return {
    id: "errors",
    title: "Errors",
    navLabel: "Errors",
    lines: table === null ? [] : [[{ kind: "note", text: ERRORS_NOTE }], [{ kind: "table", table, textColumns: 5 }]],
  };
}
