import { readRowEcs } from "../ecs-entries.js";
import { conditionsWithOrphans } from "../worst-dialogues.js";
import type { ReportReading } from "../report-reading.js";
import type { ReportSection } from "./section.js";

/** The reading notes (a torn last line...), summary.json's notes, and what the report met in the dialogues. */
export function reportNotes(reading: ReportReading): string[] {
  const notes = [...(reading.input.readingNotes ?? []), ...reading.summary.notes];
  const unreadableEcs = reading.scored.reduce((sum, row) => sum + readRowEcs(row).unreadable, 0);
  if (unreadableEcs > 0)
    notes.push(`${unreadableEcs} ECS entr${unreadableEcs === 1 ? "y has" : "ies have"} no numeric score and are left out of the charts.`);
  const { orphans } = conditionsWithOrphans(reading.summary, reading.rows);
  if (orphans.length > 0)
    notes.push(`dialogues.jsonl has condition(s) that summary.json does not: ${orphans.join(", ")} (they appear in the charts only).`);
  return notes;
}

export function notesSection(reading: ReportReading): ReportSection {
  return { id: "notes", title: "Notes", navLabel: "Notes", lines: [[{ kind: "list", items: reportNotes(reading), empty: "None." }]] };
}
