import { html } from "../html.js";
import type { ReportReading } from "../report-reading.js";
import { conditionsWithOrphans, transcriptOf, WORST_PER_CONDITION, worstRows } from "../worst-dialogues.js";
import type { ReportSection } from "./section.js";

/** The lowest-FS scored dialogues of each condition with their records; not shown at all in a report of the summary alone (no dialogue). */
export function worstSection(reading: ReportReading): ReportSection {
  const { names, orphans } = conditionsWithOrphans(reading.summary, reading.rows);
  const groups = worstRows(reading.rows, [...names, ...orphans]).map((group) => ({
    condition: group.condition,
    dialogues: group.rows.map((row) => transcriptOf(reading.input, row)),
  }));
  const pageIntro = html`The ${WORST_PER_CONDITION} lowest-FS scored dialogues of each condition, worst first, with the whole transcript. Each user reply shows the emotion after it, the actual change (after adjustments and the preset's clamp), the simulator's own proposed change, the deterministic adjustments and the flags.`;
  return {
    id: "worst",
    title: "Worst dialogues per condition",
    navLabel: "Worst dialogues",
    lines:
      reading.rows.length === 0
        ? []
        : [
            [
              {
                kind: "note",
                text: `The ${WORST_PER_CONDITION} lowest-FS scored dialogues of each condition; whole transcripts are in report.html.`,
                only: "markdown",
              },
              { kind: "page-note", html: pageIntro },
            ],
            [{ kind: "dialogues", groups, empty: "No scored dialogues." }],
          ],
  };
}
