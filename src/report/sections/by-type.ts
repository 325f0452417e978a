import { typeOrder } from "../charts/chart-data.js";
import { fixed } from "../format.js";
import type { ReportReading } from "../report-reading.js";
import type { ReportSection, Table } from "./section.js";

/** Mean FS of each condition on each trajectory type (types in the paper's order), with the cell's n. */
export function byTypeTable(reading: ReportReading): Table {
  const types = typeOrder(reading.conditions.flatMap((condition) => Object.keys(condition.byType)));
  return {
    header: ["condition", ...types],
    rows: reading.conditions.map((condition) => [
      condition.name,
      ...types.map((type) => {
        const cell = condition.byType[type];
        return cell === undefined ? "n/a" : `${fixed(cell.fsMean)} (n=${cell.n})`;
      }),
    ]),
  };
}

export function byTypeSection(reading: ReportReading): ReportSection {
  return {
    id: "by-type",
    title: "Final score by trajectory type",
    navLabel: "By type",
    lines: [[{ kind: "table", table: byTypeTable(reading) }]],
  };
}
