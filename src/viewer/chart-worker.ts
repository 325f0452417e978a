/**
 * Renders a run's six report charts off the server's event loop: Vega takes seconds on a large
 * run, during which the main thread must keep answering the dialogue table. Started by
 * report-page.ts with the charts' Vega-Lite specs as worker data (made on the main thread from
 * the rows: a few thousand points at most, where the rows themselves would be copied whole into
 * the worker); posts each chart as it is drawn, then ends (and with it Vega's memory).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { TopLevelSpec } from "vega-lite";
import { renderVegaLiteSvg } from "../report/charts/index.js";

/** What the worker is given: the charts to draw, in order. */
export interface ChartWorkerInput {
  charts: Array<{ id: string; spec: TopLevelSpec }>;
}

/** What it posts: one message per chart, in order. */
export type ChartWorkerMessage = { id: string; svg: string } | { id: string; error: string };

async function renderAll(input: ChartWorkerInput): Promise<void> {
  for (const chart of input.charts) {
    try {
      const { svg } = await renderVegaLiteSvg(chart.spec, chart.id);
      parentPort?.postMessage({ id: chart.id, svg } satisfies ChartWorkerMessage);
    } catch (error) {
      parentPort?.postMessage({ id: chart.id, error: error instanceof Error ? error.message : String(error) } satisfies ChartWorkerMessage);
    }
  }
}

if (parentPort !== null) await renderAll(workerData as ChartWorkerInput);
