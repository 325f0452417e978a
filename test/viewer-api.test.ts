/**
 * `aeb view`'s server, in-process through fastify's inject: paging, every filter, the search, a
 * dialogue read back by offset (judgements merged), the side-by-side view, the report page and its
 * charts, bad requests, and the security rules (no writes, no paths, loopback, Host check). Every
 * answer is checked against the full records read by src/record (an independent path).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DialogueRecord } from "../src/core/dialogue.js";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { buildReportModel, partsOf } from "../src/report/report-model.js";
import { loadRunForReport } from "../src/report/report-input.js";
import {
  ErrorBodySchema,
  type DialoguePage,
  type DialogueResponse,
  type ErrorBody,
  type ReportPage,
  type RunList,
  type SideBySideResponse,
} from "../src/viewer/api-schemas.js";
import { buildViewer, type Viewer } from "../src/viewer/viewer-app.js";
import { runCli, spawnCli, temporaryDirectory } from "./helpers/cli.js";
import { COOPERATIVE_ID_INDEX, HOSTILE, makeEditedRun } from "./helpers/viewer-runs.js";

let root: string;
/** An offline run of the starter suite (5 agents x 12 scenarios). */
let plain: string;
/** The same dialogues with a second ECS judge, a cooperative dialogue with an unappraised reply, a line written with \u escapes, and judgements.jsonl. */
let edited: string;
let viewer: Viewer;
let plainRecords: DialogueRecord[];
let editedRecords: DialogueRecord[];

async function get<T>(url: string): Promise<{ status: number; body: T; headers: Record<string, unknown> }> {
  const response = await viewer.app.inject({ method: "GET", url });
  return {
    status: response.statusCode,
    body: (response.headers["content-type"]?.toString().includes("json") ? response.json() : response.body) as T,
    headers: response.headers,
  };
}

/** Every page of a query, concatenated. */
async function allPages(query: string): Promise<DialoguePage["rows"]> {
  const rows: DialoguePage["rows"] = [];
  for (let offset = 0; ; offset += 200) {
    const { status, body } = await get<DialoguePage>(`/api/dialogues?limit=200&offset=${offset}${query === "" ? "" : `&${query}`}`);
    expect(status, JSON.stringify(body)).toBe(200);
    rows.push(...body.rows);
    if (offset + 200 >= body.total) return rows;
  }
}

const key = (run: number, id: string) => `${run}:${id}`;
const keysOf = (rows: ReadonlyArray<{ run: number; id: string }>) => rows.map((row) => key(row.run, row.id)).sort();
const allRecords = () => [...plainRecords.map((record) => ({ run: 0, record })), ...editedRecords.map((record) => ({ run: 1, record }))];
const expected = (keep: (record: DialogueRecord) => boolean) =>
  keysOf(
    allRecords()
      .filter(({ record }) => keep(record))
      .map(({ run, record }) => ({ run, id: record.id })),
  );

beforeAll(async () => {
  root = temporaryDirectory("aeb-viewer-api-");
  plain = join(root, "plain");
  const run = await runCli(["run", "--suite", "starter", "--out", plain, "--no-progress"]);
  expect(run.code, run.stderr).toBe(0);
  plainRecords = readDialogueRecords(plain).records;
  edited = join(root, "edited");
  makeEditedRun(plainRecords, edited);
  editedRecords = readDialogueRecords(edited).records;
  viewer = await buildViewer({ dirs: [plain, edited] });
}, 60_000);

afterAll(async () => {
  await viewer?.close();
});

describe("aeb view: the index and the table", () => {
  it("lists the runs with their facets, in the run's condition order", async () => {
    const { body } = await get<RunList>("/api/runs");
    expect(body.runs.map((run) => [run.label, run.dialogues])).toEqual([
      ["plain", 60],
      ["edited", 60],
    ]);
    expect(body.runs[0]!.facets.conditions).toEqual(["formulaic", "sycophant", "advice", "labeler", "attuned"]);
    expect(body.facets.ecsJudges).toEqual(["offline-lexicon", "second-judge"]);
    expect(body.facets.types).toContain("cooperative");
  });

  it("never calls the lexicon baseline ECS, and labels HID under the offline user as its move test", async () => {
    const { body } = await get<RunList>("/api/runs");
    const [offline, edited] = body.runs;
    // The plain run was played by the offline user (its run.json says so); the edited copy has no run.json.
    expect(offline).toMatchObject({
      hidLabel: "HID (offline: move test)",
      headlineEcsJudge: null,
      heuristicEcsJudges: { "offline-lexicon": "ECS lexicon baseline" },
    });
    expect(edited).toMatchObject({
      hidLabel: "HID",
      headlineEcsJudge: "second-judge",
      heuristicEcsJudges: { "offline-lexicon": "ECS lexicon baseline" },
    });
    const rows = await allPages("");
    const plainRows = rows.filter((row) => row.run === 0);
    // The ECS column is a model judge's only: none in the plain run, whose lexicon baseline has its own column.
    expect(plainRows.every((row) => row.ecs === null)).toBe(true);
    expect(plainRows.every((row) => typeof row.lexiconBaseline === "number")).toBe(true);
    const record = plainRecords.find((candidate) => candidate.id === plainRows[0]!.id)!;
    expect(plainRows[0]!.lexiconBaseline).toBe(record.ecs!["offline-lexicon"]!.score);
    const editedRows = rows.filter((row) => row.run === 1 && row.status === "done");
    expect(editedRows.every((row) => typeof row.ecs === "number" && typeof row.lexiconBaseline === "number")).toBe(true);
    const dialogue = await get<DialogueResponse>(`/api/dialogue?run=0&id=${encodeURIComponent(plainRows[0]!.id)}`);
    expect(dialogue.body.headlineJudge).toBeNull();
  });

  it("keeps no text in memory: an index entry holds numbers and names only", () => {
    const entry = viewer.runs[0]!.index.dialogues[0]!;
    const record = plainRecords.find((candidate) => candidate.id === entry.row.id)!;
    const kept = JSON.stringify(entry);
    expect(kept).not.toContain(record.opening.text.slice(0, 30));
    expect(kept).not.toContain(record.turns[0]!.agent.text.slice(0, 30));
  });

  it("pages through every dialogue of every run exactly once, without any text", async () => {
    const first = await get<DialoguePage>("/api/dialogues");
    expect(first.body.total).toBe(120);
    expect(first.body.rows).toHaveLength(50);
    expect(JSON.stringify(first.body)).not.toContain(plainRecords[0]!.opening.text.slice(0, 30));
    const rows = [];
    for (let offset = 0; offset < 120; offset += 50) rows.push(...(await get<DialoguePage>(`/api/dialogues?offset=${offset}`)).body.rows);
    expect(rows).toHaveLength(120);
    expect(new Set(keysOf(rows)).size).toBe(120);
    expect(keysOf(rows)).toEqual(expected(() => true));
    // Default order: run, then the run's condition order.
    expect(rows[0]!.run).toBe(0);
    expect(rows[0]!.condition).toBe("formulaic");
    expect(rows.at(-1)!.run).toBe(1);
  });

  it("filters by run, condition, type, scenario, end reason, flag and status, each as the records say", async () => {
    const scenario = plainRecords[3]!.scenarioId;
    expect(keysOf(await allPages("run=1"))).toEqual(keysOf(editedRecords.map((record) => ({ run: 1, id: record.id }))));
    expect(keysOf(await allPages("condition=attuned&condition=advice"))).toEqual(
      expected((record) => ["attuned", "advice"].includes(record.condition)),
    );
    expect(keysOf(await allPages("type=escalation"))).toEqual(expected((record) => record.type === "escalation"));
    expect(keysOf(await allPages("type=cooperative"))).toEqual([key(1, plainRecords[COOPERATIVE_ID_INDEX]!.id)]);
    expect(keysOf(await allPages(`scenario=${scenario}`))).toEqual(expected((record) => record.scenarioId === scenario));
    expect(keysOf(await allPages("endReason=collapse"))).toEqual(expected((record) => record.endReason === "collapse"));
    const flagged = expected((record) => record.turns.some((turn) => turn.user.flags.includes("formulaic")));
    expect(flagged.length).toBeGreaterThan(0);
    expect(keysOf(await allPages("flag=formulaic"))).toEqual(flagged);
    expect(keysOf(await allPages("status=done"))).toHaveLength(120);
    expect(await allPages("status=error")).toEqual([]);
    expect(keysOf(await allPages("condition=attuned&type=escalation&run=0"))).toEqual(
      expected((record) => record.condition === "attuned" && record.type === "escalation").filter((item) => item.startsWith("0:")),
    );
  });

  it("filters by the final or the lowest emotion", async () => {
    const lowest = (record: DialogueRecord) => Math.min(record.opening.emotion, ...record.turns.map((turn) => turn.user.emotion));
    expect(keysOf(await allPages("emotionMin=60&emotionMax=100"))).toEqual(expected((record) => record.final.emotion >= 60));
    expect(keysOf(await allPages("emotionMax=20"))).toEqual(expected((record) => record.final.emotion <= 20));
    // A dialogue that sank and came back: the lowest emotion finds it, the final one does not.
    const dipped = allRecords().find(({ record }) => lowest(record) < record.final.emotion);
    expect(dipped).toBeDefined();
    const low = lowest(dipped!.record);
    const byLowest = keysOf(await allPages(`emotionOf=lowest&emotionMax=${low}`));
    expect(byLowest).toEqual(expected((record) => lowest(record) <= low));
    expect(byLowest).toContain(key(dipped!.run, dipped!.record.id));
    expect(keysOf(await allPages(`emotionMax=${low}`))).not.toContain(key(dipped!.run, dipped!.record.id));
  });

  it("filters by judge disagreement: two judges' ECS apart, or a prediction far from the true emotion", async () => {
    const scores = (record: DialogueRecord) =>
      Object.values(record.ecs ?? {})
        .map((judgement) => judgement.score)
        .filter((score): score is number => typeof score === "number");
    const judgesApart = expected((record) => {
      const values = scores(record);
      return values.length >= 2 && Math.max(...values) - Math.min(...values) >= 0.25;
    });
    expect(judgesApart.length).toBeGreaterThan(0);
    expect(judgesApart.every((item) => item.startsWith("1:"))).toBe(true);
    expect(keysOf(await allPages("disagreement=judges&disagreementMin=0.25"))).toEqual(judgesApart);
    const farOff = expected((record) =>
      Object.values(record.ecs ?? {}).some((judgement) =>
        (judgement.estimates ?? []).some((estimate) => estimate.imputed !== true && Math.abs(estimate.predicted - estimate.actual) >= 40),
      ),
    );
    expect(farOff.length).toBeGreaterThan(0);
    expect(keysOf(await allPages("disagreement=prediction&disagreementMin=40"))).toEqual(farOff);
  });

  it("searches the replies, case-insensitively, in text written with or without \\u escapes, and not in hidden fields", async () => {
    const contains = (needle: string) =>
      expected((record) =>
        [record.opening.text, ...record.turns.flatMap((turn) => [turn.agent.text, turn.user.text ?? ""])].some((text) =>
          text.toLowerCase().includes(needle.toLowerCase()),
        ),
      );
    for (const query of ["i hear", "DIVORCE", "car park", "“"]) {
      const found = contains(query);
      expect(found.length, query).toBeGreaterThan(0);
      expect(keysOf(await allPages(`q=${encodeURIComponent(query)}`)), query).toEqual(found);
    }
    // The line written by an ASCII-only writer still matches on its non-ASCII text.
    expect(keysOf(await allPages(`q=${encodeURIComponent("CAFÉ CRÈME")}`))).toEqual([key(1, plainRecords[COOPERATIVE_ID_INDEX]!.id)]);
    expect(keysOf(await allPages(`q=${encodeURIComponent(HOSTILE)}`))).toEqual([key(1, plainRecords[COOPERATIVE_ID_INDEX]!.id)]);
    // Ids and the simulator's hidden reasoning are not replies.
    expect(await allPages(`q=${encodeURIComponent(plainRecords[5]!.id)}`)).toEqual([]);
    expect(await allPages("q=resolves_the_contradiction")).toEqual([]);
    // With other filters, and paged.
    const both = (await get<DialoguePage>("/api/dialogues?q=divorce&condition=attuned&limit=1")).body;
    expect(both.total).toBe(
      contains("divorce").filter((item) =>
        editedRecords.concat(plainRecords).some((record) => item.endsWith(`:${record.id}`) && record.condition === "attuned"),
      ).length,
    );
    expect(both.rows).toHaveLength(1);
  });

  it("sorts by a number either way, nulls last, ties in the default order", async () => {
    const ascending = await allPages("sort=fs&run=0");
    expect(ascending.map((row) => row.fs)).toEqual([...ascending.map((row) => row.fs)].sort((a, b) => a - b));
    const descending = await allPages("sort=predictionGap&order=desc&run=0");
    const gaps = descending.map((row) => row.predictionGap);
    expect(gaps).toEqual([...gaps].sort((a, b) => (b ?? -1) - (a ?? -1)));
    const byJudgeGap = await allPages("sort=judgeGap");
    expect(byJudgeGap.at(-1)!.judgeGap).toBeNull();
    expect(byJudgeGap[0]!.judgeGap).not.toBeNull();
  });
});

describe("aeb view: dialogues, side by side, the report", () => {
  it("reads a dialogue back whole, judgements.jsonl laid over it, with its siblings in other conditions and runs", async () => {
    const second = editedRecords[1]!;
    const { status, body } = await get<DialogueResponse>(`/api/dialogue?run=1&id=${encodeURIComponent(second.id)}`);
    expect(status).toBe(200);
    expect(body.record).toEqual(second);
    expect(Object.values(body.record.ecs ?? {})[0]!.score).toBe(0.123);
    const siblings = body.siblings.map((sibling) => `${sibling.run}:${sibling.condition}`).sort();
    expect(siblings).toEqual(
      ["formulaic", "sycophant", "advice", "labeler", "attuned"].flatMap((condition) => [`0:${condition}`, `1:${condition}`]).sort(),
    );
    const cooperative = (
      await get<DialogueResponse>(`/api/dialogue?run=1&id=${encodeURIComponent(plainRecords[COOPERATIVE_ID_INDEX]!.id)}`)
    ).body.record;
    expect(cooperative.type).toBe("cooperative");
    expect(cooperative.turns.at(-1)!.user.appraised).toBe(false);
    expect(cooperative.opening.text).toContain("Café crème");
  });

  it("puts one scenario and repeat of every condition of both runs side by side", async () => {
    const scenario = plainRecords[7]!.scenarioId;
    const { status, body } = await get<SideBySideResponse>(`/api/side-by-side?scenario=${encodeURIComponent(scenario)}&repeat=0`);
    expect(status).toBe(200);
    expect(body.dialogues.map((entry) => `${entry.run}:${entry.record.condition}`)).toEqual(
      ["formulaic", "sycophant", "advice", "labeler", "attuned"]
        .map((condition) => `0:${condition}`)
        .concat(viewer.runs[1]!.index.facets.conditions.map((condition) => `1:${condition}`)),
    );
    expect(body.omitted).toBe(0);
    expect(body.dialogues.every((entry) => entry.record.scenarioId === scenario && entry.record.repeat === 0)).toBe(true);
    const one = (
      await get<SideBySideResponse>(`/api/side-by-side?scenario=${encodeURIComponent(scenario)}&repeat=0&run=0&condition=attuned`)
    ).body;
    expect(one.dialogues.map((entry) => entry.record)).toEqual([
      plainRecords.find((record) => record.scenarioId === scenario && record.condition === "attuned"),
    ]);
    expect((await get(`/api/side-by-side?scenario=${encodeURIComponent(scenario)}&repeat=9`)).status).toBe(404);
  });

  it("serves the report's model and its charts as standalone SVG images", async () => {
    const { status, body } = await get<ReportPage>("/api/runs/0/report");
    expect(status).toBe(200);
    const model = (() => {
      const run = loadRunForReport(plain);
      return buildReportModel({
        summary: run.summary,
        rows: run.rows,
        transcripts: run.transcripts,
        readingNotes: run.readingNotes,
        ...(run.setup ? { setup: run.setup } : {}),
      });
    })();
    expect(body.headline).toEqual(partsOf(model, "headline", "table")[0]!.table);
    expect(body.byType).toEqual(partsOf(model, "by-type", "table")[0]!.table);
    // The facts say how the dialogues were run, as the report does.
    expect(body.facts).toEqual([...model.facts, ...partsOf(model, "procedure", "entries")[0]!.entries]);
    expect(body.facts.find(([label]) => label === "dialogue loop")?.[1]).toMatch(/^aeb: 8 agent replies, all appraised/);
    expect(body.summarySource).toBe("summary.json");
    expect(body.charts.map((chart) => chart.id)).toEqual([
      "chart-fs",
      "chart-type-heatmap",
      "chart-emotion-trajectory",
      "chart-ecs-vs-fs",
      "chart-ecs-phase",
      "chart-length-vs-fs",
    ]);
    const chart = await viewer.app.inject({ method: "GET", url: body.charts[2]!.url });
    expect(chart.statusCode).toBe(200);
    expect(chart.headers["content-type"]).toBe("image/svg+xml");
    expect(chart.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(chart.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(chart.body).not.toMatch(/<script|foreignObject/i);
    // The edited run has no summary.json: recomputed from its dialogues.
    expect((await get<ReportPage>("/api/runs/1/report")).body.summarySource).toBe("recomputed");
    expect((await get("/api/runs/0/charts/chart-nope.svg")).status).toBe(404);
  });
});

describe("aeb view: bad requests and security", () => {
  it("answers a bad query with 400 naming the parameter, an unknown run or id with 404", async () => {
    const cases: Array<[string, number, RegExp]> = [
      ["/api/dialogues?bogus=1", 400, /invalid request query: \(root\): Unrecognized key: "bogus"/],
      ["/api/dialogues?limit=5000", 400, /limit: limit must be at most 200/],
      ["/api/dialogues?emotionMin=abc", 400, /emotionMin: emotionMin must be a whole number/],
      ["/api/dialogues?sort=colour", 400, /sort/],
      ["/api/dialogues?status=lost", 400, /status/],
      ["/api/dialogues?run=7", 404, /there is no run 7/],
      ["/api/dialogue?run=0&id=nobody%2Fnothing%2F0", 404, /run 0 \(plain\) has no dialogue nobody\/nothing\/0/],
      ["/api/dialogue?run=0", 400, /id/],
      ["/api/runs/9/report", 404, /there is no run 9/],
      ["/api/runs/..%2F..%2Fetc/report", 404, /there is no run/],
    ];
    for (const [url, status, message] of cases) {
      const response = await get<ErrorBody>(url);
      expect(response.status, url).toBe(status);
      // The one error body of both apps (src/http/): a 400 is invalid_request naming each issue, a 404 not_found.
      expect(ErrorBodySchema.parse(response.body), url).toMatchObject({
        code: status === 400 ? "invalid_request" : "not_found",
        retryable: false,
      });
      expect(response.body.error, url).toMatch(message);
    }
  });

  it("has no route that writes, and no URL reaches a file beyond the built front end", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"] as const) {
      const response = await viewer.app.inject({ method, url: "/api/dialogues", payload: {} });
      expect(response.statusCode, method).toBe(404);
    }
    for (const url of [
      "/../package.json",
      "/assets/../../package.json",
      "/%2e%2e/package.json",
      "/assets/%2e%2e%2f%2e%2e%2fpackage.json",
      "/dialogues.jsonl",
      `/${encodeURIComponent(join(plain, "dialogues.jsonl"))}`,
    ]) {
      const response = await viewer.app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('"name": "aeb"');
    }
    const page = await viewer.app.inject({ method: "GET", url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    expect((await viewer.app.inject({ method: "GET", url: script! })).statusCode).toBe(200);
    // The record is untouched.
    expect(readDialogueRecords(plain).records).toEqual(plainRecords);
  });

  it("refuses a non-loopback host unless allowed, and a request addressed to another host", async () => {
    await expect(viewer.listen({ host: "0.0.0.0", port: 0 })).rejects.toThrow(/loopback only.*--allow-remote/);
    const listening = await buildViewer({ dirs: [plain] });
    try {
      const url = new URL(await listening.listen({ host: "127.0.0.1", port: 0 }));
      const ask = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const call = httpRequest({ host: "127.0.0.1", port: url.port, path: "/api/runs", headers: { host } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          call.on("error", reject);
          call.end();
        });
      expect(await ask(`127.0.0.1:${url.port}`)).toBe(200);
      expect(await ask(`localhost:${url.port}`)).toBe(200);
      expect(await ask("attacker.example")).toBe(421);
    } finally {
      await listening.close();
    }
  });

  it("says which file changed when a record is no longer where the index put it", async () => {
    const dir = join(root, "changing");
    mkdirSync(dir);
    writeFileSync(join(dir, "dialogues.jsonl"), readFileSync(join(plain, "dialogues.jsonl")));
    const changing = await buildViewer({ dirs: [dir] });
    try {
      writeFileSync(join(dir, "dialogues.jsonl"), `\n${readFileSync(join(plain, "dialogues.jsonl"), "utf8")}`);
      const response = await changing.app.inject({
        method: "GET",
        url: `/api/dialogue?run=0&id=${encodeURIComponent(plainRecords[0]!.id)}`,
      });
      expect(response.statusCode).toBe(500);
      expect(response.json<ErrorBody>().code).toBe("run_changed");
      expect(response.json<ErrorBody>().error).toMatch(/dialogues\.jsonl changed while the viewer was open/);
    } finally {
      await changing.close();
    }
  });

  it("aeb view refuses a missing directory and a remote host, naming them", async () => {
    const missing = await runCli(["view", join(root, "nowhere")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/run directory .*nowhere does not exist/);
    const remote = await runCli(["view", plain, "--host", "0.0.0.0", "--port", "0"]);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toMatch(/aeb: aeb view listens on loopback only .* Pass --allow-remote/);
  });

  it("aeb view serves until Ctrl-C, then stops cleanly (the built CLI, as a user runs it)", async () => {
    const child = spawnCli(["view", plain, "--port", "0"]);
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1];
        if (found !== undefined) resolve(found);
      });
      child.once("exit", (code) => reject(new Error(`aeb view exited with ${code}: ${stderr}`)));
    });
    expect(stdout).toMatch(/aeb view: 60 dialogue\(s\) in 1 run\(s\), indexed in \d+\.\d s; open http/);
    const runs = (await (await fetch(`${url}api/runs`)).json()) as RunList;
    expect(runs.runs[0]!.dialogues).toBe(60);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });
});
