/**
 * The viewer's first page: the report of a run (src/report's model: facts, headline, per-type
 * table, notes) and its six charts, rendered to SVG by the report's own renderers in a worker
 * thread (chart-worker.ts), so the server keeps answering while Vega draws. Both are made on first
 * request and kept; the charts are served as standalone SVG images, so no markup from the server
 * is ever put into the page's DOM.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { RunSummary } from "../analysis/summary-schema.js";
import { packageRoot } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { loadRunFromRows, type LoadedRun } from "../record/load-run.js";
import { chartDefinitions, type ChartDefinition } from "../report/charts/index.js";
import { sortedById } from "../metrics/dialogue-row.js";
import { buildReportModel, partsOf, transcriptIds, type ReportModel, type Table } from "../report/report-model.js";
import { classifyEcsJudges, type EcsJudgeKinds } from "../analysis/ecs-judges.js";
import { simulatorHidLabel } from "../report/hid-label.js";
import type { ReportPage } from "./api-schemas.js";
import type { ChartWorkerInput, ChartWorkerMessage } from "./chart-worker.js";
import { readRecords } from "./record-store.js";
import type { IndexedDialogue, RunIndex } from "./run-index.js";

/**
 * The built worker (a worker thread runs JavaScript files; the sources are TypeScript, so tests
 * that run the sources use the build too, which their global setup keeps fresh).
 */
export const CHART_WORKER_FILE = join(packageRoot, "dist", "viewer", "chart-worker.js");

const SVG_NAMESPACE = "http://www.w3.org/2000/svg";

/** A chart as a standalone SVG document (the report inlines it without its namespace; an image needs it back). */
export function standaloneSvg(svg: string): string {
  return svg.replace(/^<svg\b/, `<svg xmlns="${SVG_NAMESPACE}"`);
}

/** The first table of a report section (the headline's, the per-type one). */
function firstTable(model: ReportModel, id: string): Table {
  const [part] = partsOf(model, id, "table");
  if (part === undefined) throw new Error(`the report's ${id} section has no table`);
  return part.table;
}

/** The report part of one run, made once. */
export class RunReport {
  #loaded: LoadedRun | undefined;
  #page: ReportPage | undefined;
  readonly #charts = new Map<string, Promise<string>>();
  #definitions: ChartDefinition[] | undefined;
  readonly #workers = new Set<Worker>();

  constructor(readonly index: RunIndex) {}

  /** The run as the reports read it (summary.json, or recomputed when it is missing), from the index's rows. */
  loaded(): LoadedRun {
    this.#loaded ??= loadRunFromRows(this.index.dir, {
      rows: this.index.dialogues.map((entry) => entry.row),
      tornTail: this.index.tornTail,
    });
    return this.#loaded;
  }

  /** The six charts' definitions from the rows in id order, as the report draws them; made once (a large run's take a pass over every row). */
  definitions(): ChartDefinition[] {
    this.#definitions ??= chartDefinitions(this.summary, sortedById(this.loaded().rows));
    return this.#definitions;
  }

  get summary(): RunSummary {
    return this.loaded().summary;
  }

  /** The run's ECS judges (the summary's, then those only the dialogues carry) sorted into the model headline and the heuristics. */
  ecsKinds(): EcsJudgeKinds {
    const judges = [...this.summary.judges.ecs, ...this.index.facets.ecsJudges.filter((judge) => !this.summary.judges.ecs.includes(judge))];
    return classifyEcsJudges(this.loaded().rows, judges);
  }

  /**
   * The headline ECS judge: the first that is a model; null when only heuristics (the lexicon
   * baseline) or no judge ran, so the viewer never shows a heuristic's score as "ECS".
   */
  headlineJudge(): string | null {
    return this.ecsKinds().headline;
  }

  /** The heuristic ECS judges by name, each with what the viewer calls it ("ECS lexicon baseline"). */
  heuristicJudges(): Record<string, string> {
    return Object.fromEntries(this.ecsKinds().heuristics.map((heuristic) => [heuristic.name, heuristic.label]));
  }

  /** What the simulated user's HID is called in this run: "HID (offline: move test)" under the offline user (report/hid-label.ts). */
  hidLabel(): string {
    return simulatorHidLabel(this.loaded().setup?.simulator);
  }

  page(): ReportPage {
    if (this.#page !== undefined) return this.#page;
    const run = this.loaded();
    const wanted = transcriptIds(run.summary, run.rows);
    const entries = [...wanted].map((id) => this.index.byId.get(id)).filter((entry): entry is IndexedDialogue => entry !== undefined);
    const transcripts = new Map(readRecords(this.index, entries).map((record) => [record.id, record]));
    const model = buildReportModel({
      summary: run.summary,
      rows: run.rows,
      transcripts,
      // The index's own notes (duplicate ids) are shown above every page of the viewer.
      readingNotes: run.readingNotes,
      ...(run.setup !== undefined ? { setup: run.setup } : {}),
      title: `AEB run ${this.index.label}`,
    });
    this.#page = {
      run: this.index.run,
      label: this.index.label,
      title: model.title,
      // The report's facts, then how the dialogues were run (the preset's loop, the prompt pack, unreadable judge turns).
      facts: [...model.facts, ...partsOf(model, "procedure", "entries").flatMap((part) => part.entries)],
      headline: firstTable(model, "headline"),
      headlineNotes: partsOf(model, "headline", "note").map((part) => part.text),
      byType: firstTable(model, "by-type"),
      notes: partsOf(model, "notes", "list").flatMap((part) => part.items),
      summarySource: run.summarySource,
      // With the rows: a large run's per-dialogue charts say in their caption that they draw a sample.
      charts: this.definitions().map((chart) => ({
        id: chart.id,
        title: chart.title,
        caption: chart.caption,
        url: `/api/runs/${this.index.run}/charts/${chart.id}.svg`,
      })),
    };
    return this.#page;
  }

  /** Whether the report has a chart of this id. */
  hasChart(id: string): boolean {
    return chartDefinitions(this.summary, []).some((chart) => chart.id === id);
  }

  /** A chart as a standalone SVG document; the first request starts the worker that draws all six. */
  chart(id: string): Promise<string> {
    if (!this.#charts.has(id)) this.#renderAll();
    const rendering = this.#charts.get(id);
    if (rendering === undefined) return Promise.reject(new Error(`no chart ${id}`));
    return rendering;
  }

  /** Starts the worker; each chart's promise settles as its message arrives (a failed one is dropped, so a later request tries again). */
  #renderAll(): void {
    if (!existsSync(CHART_WORKER_FILE))
      throw new AebError(`the viewer's chart renderer is not built (no ${CHART_WORKER_FILE}); run npm run build in the aeb package`);
    const run = this.loaded();
    const ids = chartDefinitions(run.summary, []).map((chart) => chart.id);
    const pending = new Map<string, { resolve: (svg: string) => void; reject: (error: Error) => void }>();
    for (const id of ids) {
      const promise = new Promise<string>((resolve, reject) => pending.set(id, { resolve, reject }));
      promise.catch(() => {
        if (this.#charts.get(id) === promise) this.#charts.delete(id);
      });
      this.#charts.set(id, promise);
    }
    const input: ChartWorkerInput = { charts: this.definitions().map((chart) => ({ id: chart.id, spec: chart.spec })) };
    const worker = new Worker(CHART_WORKER_FILE, { workerData: input });
    this.#workers.add(worker);
    worker.on("message", (message: ChartWorkerMessage) => {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if ("svg" in message) waiting?.resolve(standaloneSvg(message.svg));
      else waiting?.reject(new Error(`chart ${message.id} could not be drawn: ${message.error}`));
    });
    const failAll = (reason: string) => {
      for (const [id, waiting] of pending) waiting.reject(new Error(`chart ${id} could not be drawn: ${reason}`));
      pending.clear();
    };
    worker.on("error", (error) => failAll(error.message));
    worker.on("exit", (code) => {
      this.#workers.delete(worker);
      failAll(`the chart worker exited with code ${code}`);
    });
  }

  /** Stops any worker still drawing (the server is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.#workers].map((worker) => worker.terminate()));
  }
}
