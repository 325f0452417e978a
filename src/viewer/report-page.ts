/**
 * The viewer's first page: the report of a run (src/report's model: facts, headline, per-type
 * table, notes) and its six charts, rendered to SVG on the server by the report's own renderers.
 * Both are made on first request and kept; the charts are served as standalone SVG images, so no
 * markup from the server is ever put into the page's DOM.
 */
import type { RunSummary } from "../analysis/summary-schema.js";
import { loadRunFromRows, type LoadedRun } from "../record/load-run.js";
import { chartDefinitions, renderVegaLiteSvg } from "../report/charts/index.js";
import { sortedById } from "../metrics/dialogue-row.js";
import { buildReportModel, transcriptIds } from "../report/report-model.js";
import type { ReportPage } from "./api-schemas.js";
import { readRecords } from "./record-store.js";
import type { IndexedDialogue, RunIndex } from "./run-index.js";

const SVG_NAMESPACE = "http://www.w3.org/2000/svg";

/** Charts render one at a time, whichever run asks (as the report renders them): Vega views share process-wide state. */
let renderQueue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const result = renderQueue.then(task, task);
  renderQueue = result.catch(() => undefined);
  return result;
}

/** A chart as a standalone SVG document (the report inlines it without its namespace; an image needs it back). */
export function standaloneSvg(svg: string): string {
  return svg.replace(/^<svg\b/, `<svg xmlns="${SVG_NAMESPACE}"`);
}

/** The report part of one run, made once. */
export class RunReport {
  #loaded: LoadedRun | undefined;
  #page: ReportPage | undefined;
  readonly #charts = new Map<string, Promise<string>>();

  constructor(readonly index: RunIndex) {}

  /** The run as the reports read it (summary.json, or recomputed when it is missing), from the index's rows. */
  loaded(): LoadedRun {
    this.#loaded ??= loadRunFromRows(this.index.dir, { rows: this.index.dialogues.map((entry) => entry.row), tornTail: this.index.tornTail });
    return this.#loaded;
  }

  get summary(): RunSummary {
    return this.loaded().summary;
  }

  /** The first ECS judge: the summary's, else the first the dialogues carry. */
  headlineJudge(): string | null {
    return this.summary.judges.ecs[0] ?? this.index.facets.ecsJudges[0] ?? null;
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
      readingNotes: [...run.readingNotes, ...this.index.readingNotes.filter((note) => !run.readingNotes.includes(note))],
      ...(run.setup !== undefined ? { setup: run.setup } : {}),
      title: `AEB run ${this.index.label}`,
    });
    this.#page = {
      run: this.index.run,
      label: this.index.label,
      title: model.title,
      facts: model.facts,
      headline: model.headline,
      headlineNotes: model.headlineNotes,
      byType: model.byType,
      notes: model.notes,
      summarySource: run.summarySource,
      charts: chartDefinitions(run.summary, []).map((chart) => ({ id: chart.id, title: chart.title, caption: chart.caption, url: `/api/runs/${this.index.run}/charts/${chart.id}.svg` })),
    };
    return this.#page;
  }

  /** Whether the report has a chart of this id. */
  hasChart(id: string): boolean {
    return chartDefinitions(this.summary, []).some((chart) => chart.id === id);
  }

  /** A chart as a standalone SVG document, rendered on first request. */
  chart(id: string): Promise<string> {
    let rendering = this.#charts.get(id);
    if (rendering === undefined) {
      rendering = oneAtATime(() => this.#render(id));
      this.#charts.set(id, rendering);
      // A failed rendering is not kept: the next request tries again.
      rendering.catch(() => this.#charts.delete(id));
    }
    return rendering;
  }

  async #render(id: string): Promise<string> {
    const run = this.loaded();
    // In id order, as the report draws them.
    const chart = chartDefinitions(run.summary, sortedById(run.rows)).find((candidate) => candidate.id === id);
    if (chart === undefined) throw new Error(`no chart ${id}`);
    const { svg } = await renderVegaLiteSvg(chart.spec, chart.id);
    return standaloneSvg(svg);
  }
}
