/**
 * `aeb view`: a read-only web app over run directories, on fastify and src/http/'s plugins (as the environment server).
 * Every route is a GET; dialogues are named by run number and id, never by a path; the front end
 * is served from memory (static-assets.ts). Bound to loopback unless the caller allows more, and
 * then requests must name this machine in their Host header (a page elsewhere that rebinds its
 * domain to 127.0.0.1 cannot read the runs).
 */
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { AebError, ConfigError } from "../core/errors.js";
import { errorHandling } from "../http/error-handling.js";
import { hostCheck } from "../http/host-check.js";
import { HttpError } from "../http/http-error.js";
import { allowedHostNames, assertSafeBinding } from "../http/loopback.js";
import { securityHeaders } from "../http/security-headers.js";
import { zodValidation } from "../http/zod-validation.js";
import {
  DialogueQuerySchema,
  DialogueRefSchema,
  SideBySideQuerySchema,
  type DialoguePage,
  type DialogueQuery,
  type DialogueRef,
  type DialogueResponse,
  type Facets,
  type RunList,
  type SideBySideQuery,
  type SideBySideResponse,
  type ViewerErrorCode,
} from "./api-schemas.js";
import { DialogueTable, type SearchableRun } from "./dialogue-query.js";
import { readRecords } from "./record-store.js";
import { ReplySearch } from "./reply-search.js";
import { RunReport } from "./report-page.js";
import { indexRun, runLabels, type IndexedDialogue } from "./run-index.js";
import { loadStaticAssets, type StaticAsset } from "./static-assets.js";

/** Most dialogues the side-by-side view shows at once. */
export const MAX_SIDE_BY_SIDE = 12;

/**
 * What the page may load and do: only this server's own script, style, images and API; no
 * inline script, no frame, no form, no outside request.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A chart image: SVG text and styles only, nothing it could run or load. */
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

export interface ViewerOptions {
  /** The run directories, in the order the viewer lists them. */
  dirs: readonly string[];
  /** The built front end (default: dist/viewer-ui of the package). */
  assetsDir?: string;
}

export interface Viewer {
  app: FastifyInstance;
  runs: readonly SearchableRun[];
  /** Listens on `host` (loopback unless `allowRemote`) and returns the page's URL. */
  listen(options: { host: string; port: number; allowRemote?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** The viewer shows whole transcripts: beyond loopback only when the user says so. */
export function assertViewerBinding(host: string, allowRemote: boolean): void {
  assertSafeBinding(host, {
    app: "aeb view",
    exposes: "every transcript",
    allowed: allowRemote,
    howToAllow: "Pass --allow-remote to do it anyway (there is no login)",
  });
}

/** A run, dialogue, chart or file the viewer does not have: 404 `not_found`. */
const notFound = (message: string) => new HttpError<ViewerErrorCode>(404, "not_found", message);

function mergedFacets(runs: readonly SearchableRun[]): Facets {
  const union = (pick: (facets: Facets) => string[], sort: boolean) => {
    const values = [...new Set(runs.flatMap((run) => pick(run.index.facets)))];
    return sort ? values.sort() : values;
  };
  return {
    conditions: union((facets) => facets.conditions, false),
    types: union((facets) => facets.types, true),
    scenarios: union((facets) => facets.scenarios, true),
    endReasons: union((facets) => facets.endReasons, true),
    flags: union((facets) => facets.flags, true),
    presets: union((facets) => facets.presets, true),
    ecsJudges: union((facets) => facets.ecsJudges, false),
  };
}

/**
 * Indexes the run directories (one streamed pass each; an unreadable directory is an error naming
 * it) and builds the app, not yet listening.
 */
export async function buildViewer(options: ViewerOptions): Promise<Viewer> {
  if (options.dirs.length === 0) throw new ConfigError("aeb view needs at least one run directory");
  const assets = loadStaticAssets(options.assetsDir);
  const labels = runLabels(options.dirs);
  const reports: RunReport[] = [];
  const runs: SearchableRun[] = options.dirs.map((dir, run) => {
    const index = indexRun(dir, run, labels[run]);
    const report = new RunReport(index);
    reports.push(report);
    return {
      index,
      search: new ReplySearch(index),
      headlineJudge: report.headlineJudge(),
      lexiconJudge: Object.keys(report.heuristicJudges())[0] ?? null,
    };
  });
  const facets = mergedFacets(runs);
  const table = new DialogueTable(runs);
  let allowedHosts: ReadonlySet<string> | undefined;

  const app = Fastify({ logger: false, return503OnClosing: true, routerOptions: { maxParamLength: 200 } });
  await app.register(zodValidation);
  await app.register(errorHandling, {
    notFoundMessage: (method, path) => `nothing at ${method} ${path}`,
    // A run directory that changed under the viewer: say so (the message names the file).
    mapError: (error) =>
      AebError.isInstance(error) ? new HttpError<ViewerErrorCode>(500, "run_changed", (error as Error).message) : undefined,
  });
  await app.register(hostCheck, {
    allowedHosts: () => allowedHosts,
    refusal: "this viewer answers only requests addressed to this machine (Host 127.0.0.1, localhost or [::1])",
  });
  await app.register(securityHeaders, { contentSecurityPolicy: CONTENT_SECURITY_POLICY });

  const runAt = (run: number): SearchableRun => {
    const found = runs[run];
    if (found === undefined) throw notFound(`there is no run ${run} (the viewer has ${runs.length}: 0 to ${runs.length - 1})`);
    return found;
  };
  const reportAt = (run: number): RunReport => {
    runAt(run);
    return reports[run] as RunReport;
  };
  const runNumber = (text: string): number => {
    if (!/^\d+$/.test(text)) throw notFound(`there is no run ${text}`);
    return Number(text);
  };

  app.get("/api/runs", async (): Promise<RunList> => ({
    runs: runs.map(({ index, headlineJudge }) => {
      const report = reports[index.run] as RunReport;
      return {
        run: index.run,
        label: index.label,
        dir: index.dir,
        dialogues: index.dialogues.length,
        facets: index.facets,
        readingNotes: index.readingNotes,
        hidLabel: report.hidLabel(),
        headlineEcsJudge: headlineJudge,
        heuristicEcsJudges: report.heuristicJudges(),
      };
    }),
    facets,
  }));

  app.get<{ Querystring: DialogueQuery }>(
    "/api/dialogues",
    { schema: { querystring: DialogueQuerySchema } },
    async (request): Promise<DialoguePage> => {
      const query = request.query;
      for (const run of query.run) runAt(run);
      const page = table.page(query);
      return { total: page.total, offset: query.offset, limit: query.limit, rows: page.rows };
    },
  );

  app.get<{ Querystring: DialogueRef }>(
    "/api/dialogue",
    { schema: { querystring: DialogueRefSchema } },
    async (request): Promise<DialogueResponse> => {
      const ref = request.query;
      const run = runAt(ref.run);
      const entry = run.index.byId.get(ref.id);
      if (entry === undefined) throw notFound(`run ${ref.run} (${run.index.label}) has no dialogue ${ref.id}`);
      const [record] = readRecords(run.index, [entry]);
      const siblings = runs.flatMap(({ index }) =>
        index.dialogues
          .filter(
            (other) =>
              other.row.scenarioId === entry.row.scenarioId &&
              other.row.repeat === entry.row.repeat &&
              index.byId.get(other.row.id) === other,
          )
          .map((other) => ({ run: index.run, id: other.row.id, condition: other.row.condition })),
      );
      return { run: ref.run, label: run.index.label, record: record!, headlineJudge: run.headlineJudge, siblings };
    },
  );

  app.get<{ Querystring: SideBySideQuery }>(
    "/api/side-by-side",
    { schema: { querystring: SideBySideQuerySchema } },
    async (request): Promise<SideBySideResponse> => {
      const query = request.query;
      for (const run of query.run) runAt(run);
      const chosen = runs.filter((run) => query.run.length === 0 || query.run.includes(run.index.run));
      const matching: Array<{ run: SearchableRun; entries: IndexedDialogue[] }> = chosen.map((run) => ({
        run,
        entries: run.index.facets.conditions
          .filter((condition) => query.condition.length === 0 || query.condition.includes(condition))
          .flatMap((condition) => {
            const entry = run.index.dialogues.find(
              (candidate) =>
                candidate.row.condition === condition &&
                candidate.row.scenarioId === query.scenario &&
                candidate.row.repeat === query.repeat,
            );
            return entry === undefined ? [] : [entry];
          }),
      }));
      const total = matching.reduce((sum, group) => sum + group.entries.length, 0);
      if (total === 0)
        throw notFound(`no dialogue of scenario ${query.scenario}, repeat ${query.repeat} in the chosen runs and conditions`);
      let room = MAX_SIDE_BY_SIDE;
      const dialogues: SideBySideResponse["dialogues"] = [];
      for (const { run, entries } of matching) {
        const shown = entries.slice(0, room);
        room -= shown.length;
        for (const record of readRecords(run.index, shown)) dialogues.push({ run: run.index.run, label: run.index.label, record });
      }
      return { scenario: query.scenario, repeat: query.repeat, dialogues, omitted: total - dialogues.length };
    },
  );

  app.get<{ Params: { run: string } }>("/api/runs/:run/report", async (request) => reportAt(runNumber(request.params.run)).page());

  app.get<{ Params: { run: string; chart: string } }>(
    "/api/runs/:run/charts/:chart",
    { config: { contentSecurityPolicy: SVG_POLICY } },
    async (request, reply) => {
      const report = reportAt(runNumber(request.params.run));
      const id = request.params.chart.replace(/\.svg$/, "");
      if (!report.hasChart(id)) throw notFound(`the report has no chart ${id}`);
      const svg = await report.chart(id);
      return reply.header("content-type", "image/svg+xml").header("cache-control", "no-cache").send(svg);
    },
  );

  const sendAsset = (reply: FastifyReply, asset: StaticAsset) =>
    reply
      .header("content-type", asset.contentType)
      .header("cache-control", asset.immutable ? "public, max-age=31536000, immutable" : "no-cache")
      .send(asset.body);
  // Browsers ask for an icon on their own; there is none, and a 404 would be logged as an error.
  app.get("/favicon.ico", async (_request, reply) => reply.code(204).send());
  app.get("/*", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const asset = assets.get(path === "/" ? "/index.html" : path);
    if (asset === undefined || path.startsWith("/api/")) throw notFound(`nothing at ${path}`);
    return sendAsset(reply, asset);
  });

  return {
    app,
    runs,
    async listen({ host, port, allowRemote = false }) {
      assertViewerBinding(host, allowRemote);
      allowedHosts = allowedHostNames(host);
      await app.listen({ host, port });
      const address = app.server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return `http://${shownHost}:${address.port}/`;
    },
    async close() {
      await Promise.all(reports.map((report) => report.close()));
      await app.close();
    },
  };
}
