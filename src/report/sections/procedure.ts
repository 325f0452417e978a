import { FIDELITY_DOC, presetEntries, promptPackEntry, unreadableTurnsEntry } from "../procedure.js";
import type { ReportReading } from "../report-reading.js";
import type { ReportSection } from "./section.js";

/**
 * How the dialogues were run (procedure.ts): each preset's loop, the LLM simulated user's prompt
 * pack, what each ECS judge did with unreadable turns, and where the departures from the sources are listed.
 */
export function procedureEntries(reading: ReportReading): Array<[string, string]> {
  const { rows, conditions, judges } = reading;
  const presets = [...new Set(rows.map((row) => row.preset))].sort();
  const conditionNames = [...new Set([...conditions.map((condition) => condition.name), ...rows.map((row) => row.condition)])];
  const entries: Array<[string, string]> = presetEntries(rows, conditionNames);
  const promptPack = promptPackEntry(reading.input.setup?.simulator, presets);
  if (promptPack !== null) entries.push(["simulator prompt pack", promptPack]);
  for (const judge of judges) entries.push([`ECS judge ${judge}: unreadable turns`, unreadableTurnsEntry(judge, rows)]);
  entries.push([
    "fidelity to the sources",
    `how each preset and prompt pack departs from SAGE, RLVER and the AEB paper, and whether it changes the numbers: ${FIDELITY_DOC} in the AEB repository`,
  ]);
  return entries;
}

export function procedureSection(reading: ReportReading): ReportSection {
  return {
    id: "procedure",
    title: "How the dialogues were run",
    navLabel: "Procedure",
    lines: [
      [{ kind: "entries", header: ["procedure", "value"], entries: procedureEntries(reading) }],
      [
        {
          kind: "note",
          text: "Scores are comparable only between runs of the same procedure: the same preset, the same simulated user and prompt pack, and judges that treat unreadable turns alike.",
        },
      ],
    ],
  };
}
