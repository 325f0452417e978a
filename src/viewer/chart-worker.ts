/**
 * Renders a run's six report charts off the server's event loop: Vega takes seconds on a
 * 10,000-dialogue run (one point per dialogue in two charts), during which the main thread must
 * keep answering the dialogue table. Started by report-page.ts with the summary and the rows as
 * worker data; posts each chart as it is drawn, then ends (and with it Vega's memory).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { RunSummary } from "../analysis/summary-schema.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import { chartDefinitions, renderVegaLiteSvg } from "../report/charts/index.js";

/** What the worker is given. */
export interface ChartWorkerInput {
  summary: RunSummary;
  /** The run's rows in id order, as the report draws them. */
  rows: DialogueRow[];
}

/** What it posts: one message per chart, in order. */
export type ChartWorkerMessage = { id: string; svg: string } | { id: string; error: string };

async function renderAll(input: ChartWorkerInput): Promise<void> {
  for (const chart of chartDefinitions(input.summary, input.rows)) {
    try {
      const { svg } = await renderVegaLiteSvg(chart.spec, chart.id);
      parentPort?.postMessage({ id: chart.id, svg } satisfies ChartWorkerMessage);
    } catch (error) {
      parentPort?.postMessage({ id: chart.id, error: error instanceof Error ? error.message : String(error) } satisfies ChartWorkerMessage);
    }
  }
}

if (parentPort !== null) await renderAll(workerData as ChartWorkerInput);
