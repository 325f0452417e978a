/**
 * `aeb view`: a read-only web app over run directories, on fastify (as the environment server).
 * Every route is a GET; dialogues are named by run number and id, never by a path; the front end
 * is served from memory (static-assets.ts). Bound to loopback unless the caller allows more, and
 * then requests must name this machine in their Host header (a page elsewhere that rebinds its
 * domain to 127.0.0.1 cannot read the runs).
 */
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { z } from "zod";
import { AebError, ConfigError } from "../core/errors.js";
import {
  DialogueQuerySchema,
  DialogueRefSchema,
  SideBySideQuerySchema,
  type DialoguePage,
  type DialogueResponse,
  type ErrorBody,
  type Facets,
  type RunList,
  type SideBySideResponse,
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

/** Is this host a loopback address or name? */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

/** The viewer shows whole transcripts: beyond loopback only when the user says so. */
export function assertViewerBinding(host: string, allowRemote: boolean): void {
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new ConfigError(
      `aeb view listens on loopback only (127.0.0.1, ::1, localhost); ${host} would show every transcript to the network. Pass --allow-remote to do it anyway (there is no login)`,
    );
  }
}

/** The host name of a Host header (`127.0.0.1:8790`, `[::1]:8790`, `localhost`). */
function hostName(header: string | undefined): string {
  if (header === undefined) return "";
  if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
  const colon = header.lastIndexOf(":");
  return colon === -1 ? header : header.slice(0, colon);
}

class NotFound extends Error {}
class BadRequest extends Error {}

function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const message =
    issue?.code === "unrecognized_keys"
      ? `unknown query parameter(s): ${(issue as { keys?: string[] }).keys?.join(", ") ?? "?"}`
      : `${field === "" ? "query" : field}: ${issue?.message ?? "invalid"}`;
  throw new BadRequest(message);
}

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
  let allowedHosts: Set<string> | null = null;

  const app = Fastify({ logger: false, return503OnClosing: true, routerOptions: { maxParamLength: 200 } });

  app.addHook("onRequest", async (request, reply) => {
    // Loopback only: refuse a Host that is not this machine (DNS rebinding).
    if (allowedHosts !== null && !allowedHosts.has(hostName(request.headers.host).toLowerCase())) {
      await reply.code(421).send({
        error: "this viewer answers only requests addressed to this machine (Host 127.0.0.1, localhost or [::1])",
      } satisfies ErrorBody);
    }
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", CONTENT_SECURITY_POLICY);
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    reply.header("cross-origin-resource-policy", "same-origin");
    return payload;
  });
  app.setErrorHandler(async (error, _request, reply) => {
    if (error instanceof BadRequest) return reply.code(400).send({ error: error.message } satisfies ErrorBody);
    if (error instanceof NotFound) return reply.code(404).send({ error: error.message } satisfies ErrorBody);
    // A run directory that changed under the viewer: say so (the message names the file).
    if (AebError.isInstance(error)) return reply.code(500).send({ error: error.message } satisfies ErrorBody);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500)
      return reply.code(status).send({ error: (error as Error).message } satisfies ErrorBody);
    return reply.code(500).send({ error: "internal error" } satisfies ErrorBody);
  });
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: `nothing at ${request.method} ${request.url.split("?")[0] ?? ""}` } satisfies ErrorBody),
  );

  const runAt = (run: number): SearchableRun => {
    const found = runs[run];
    if (found === undefined) throw new NotFound(`there is no run ${run} (the viewer has ${runs.length}: 0 to ${runs.length - 1})`);
    return found;
  };
  const reportAt = (run: number): RunReport => {
    runAt(run);
    return reports[run] as RunReport;
  };
  const runNumber = (text: string): number => {
    if (!/^\d+$/.test(text)) throw new NotFound(`there is no run ${text}`);
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

  app.get("/api/dialogues", async (request): Promise<DialoguePage> => {
    const query = parseQuery(DialogueQuerySchema, request.query);
    for (const run of query.run) runAt(run);
    const page = table.page(query);
    return { total: page.total, offset: query.offset, limit: query.limit, rows: page.rows };
  });

  app.get("/api/dialogue", async (request): Promise<DialogueResponse> => {
    const ref = parseQuery(DialogueRefSchema, request.query);
    const run = runAt(ref.run);
    const entry = run.index.byId.get(ref.id);
    if (entry === undefined) throw new NotFound(`run ${ref.run} (${run.index.label}) has no dialogue ${ref.id}`);
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
  });

  app.get("/api/side-by-side", async (request): Promise<SideBySideResponse> => {
    const query = parseQuery(SideBySideQuerySchema, request.query);
    for (const run of query.run) runAt(run);
    const chosen = runs.filter((run) => query.run.length === 0 || query.run.includes(run.index.run));
    const matching: Array<{ run: SearchableRun; entries: IndexedDialogue[] }> = chosen.map((run) => ({
      run,
      entries: run.index.facets.conditions
        .filter((condition) => query.condition.length === 0 || query.condition.includes(condition))
        .flatMap((condition) => {
          const entry = run.index.dialogues.find(
            (candidate) =>
              candidate.row.condition === condition && candidate.row.scenarioId === query.scenario && candidate.row.repeat === query.repeat,
          );
          return entry === undefined ? [] : [entry];
        }),
    }));
    const total = matching.reduce((sum, group) => sum + group.entries.length, 0);
    if (total === 0)
      throw new NotFound(`no dialogue of scenario ${query.scenario}, repeat ${query.repeat} in the chosen runs and conditions`);
    let room = MAX_SIDE_BY_SIDE;
    const dialogues: SideBySideResponse["dialogues"] = [];
    for (const { run, entries } of matching) {
      const shown = entries.slice(0, room);
      room -= shown.length;
      for (const record of readRecords(run.index, shown)) dialogues.push({ run: run.index.run, label: run.index.label, record });
    }
    return { scenario: query.scenario, repeat: query.repeat, dialogues, omitted: total - dialogues.length };
  });

  app.get<{ Params: { run: string } }>("/api/runs/:run/report", async (request) => reportAt(runNumber(request.params.run)).page());

  app.get<{ Params: { run: string; chart: string } }>("/api/runs/:run/charts/:chart", async (request, reply) => {
    const report = reportAt(runNumber(request.params.run));
    const id = request.params.chart.replace(/\.svg$/, "");
    if (!report.hasChart(id)) throw new NotFound(`the report has no chart ${id}`);
    const svg = await report.chart(id);
    return reply
      .header("content-type", "image/svg+xml")
      .header("content-security-policy", SVG_POLICY)
      .header("cache-control", "no-cache")
      .send(svg);
  });

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
    if (asset === undefined || path.startsWith("/api/")) throw new NotFound(`nothing at ${path}`);
    return sendAsset(reply, asset);
  });

  return {
    app,
    runs,
    async listen({ host, port, allowRemote = false }) {
      assertViewerBinding(host, allowRemote);
      if (isLoopbackHost(host)) allowedHosts = new Set(["127.0.0.1", "localhost", "[::1]", host.toLowerCase()]);
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
