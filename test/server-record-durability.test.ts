/**
 * `aeb serve --record`: an acknowledged episode is on disk. A full disk (a real tmpfs) fails the
 * last steps it cannot record (503, retryable) and leaves no torn line; once space is freed the
 * retries are written once; SIGKILLs of the server (one process, and the primary of `--workers 2`)
 * lose none of the episodes whose last step was answered.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { scanJsonlFile } from "../src/core/jsonl.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { buildServer } from "../src/server/app.js";
import { EpisodeRecorder } from "../src/server/episode-recorder.js";
import { CLI, temporaryDirectory } from "./helpers/cli.js";
import { fetchSender, finishStep, playEpisode, type PlayedEpisode, type Send } from "./helpers/episode-client.js";
import { directoryIn, mountTmpfs } from "./helpers/tmpfs.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
const SECRET = "durability-secret-durability-secret";
const tmpfs = mountTmpfs(2 * 1024 * 1024);
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (typeof tmpfs !== "string") tmpfs.unmount();
});

/** The episodes on disk by episode id (how many lines each), after checking every line is whole JSON. */
function episodesOnDisk(dir: string): Map<string, number> {
  const counts = new Map<string, number>();
  const scan = scanJsonlFile(join(dir, "dialogues.jsonl"), (value) => {
    const id = (value as { training: { episodeId: string } }).training.episodeId;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  });
  expect(scan.invalid, "a line in the middle of dialogues.jsonl is not JSON").toEqual([]);
  expect(scan.tornTail, "dialogues.jsonl ends in a torn line").toBe(false);
  expect(scan.bytes === 0 || scan.endsWithNewline).toBe(true);
  return counts;
}

/** Every acknowledged episode on disk exactly once, and no episode twice. */
function expectAcknowledgedOnDiskOnce(acknowledged: readonly string[], onDisk: Map<string, number>): void {
  expect(
    acknowledged.filter((id) => onDisk.get(id) !== 1),
    "acknowledged episodes not on disk exactly once",
  ).toEqual([]);
  expect(
    [...onDisk].filter(([, count]) => count > 1),
    "episodes on disk twice",
  ).toEqual([]);
}

function injectSender(app: FastifyInstance): Send {
  return async (path, body) => {
    const response = await app.inject({
      method: "POST",
      url: path,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, body: response.json() };
  };
}

const resets = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => ({ seed: index, episodeId: `${prefix}-${index}` }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `aeb serve` as a process; resolves once it listens. */
async function startServe(
  args: string[],
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null>; stderr: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AEB_SERVER_SECRET: SECRET };
  delete env.AEB_SERVER_TOKEN;
  const child = spawn(process.execPath, [CLI, "serve", "--suite", "starter", "--host", "127.0.0.1", "--log-level", "silent", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`aeb serve exited with ${code}: ${stderr}`));
    });
  });
  return { child, url, exited, stderr: () => stderr };
}

async function health(
  url: string,
  options: { fresh?: boolean } = {},
): Promise<{ status: number; body: { status: string; recorder?: { state: string; error?: string } } }> {
  const response = await fetch(`${url}/healthz`, options.fresh === true ? { headers: { connection: "close" } } : {});
  return { status: response.status, body: (await response.json()) as { status: string; recorder?: { state: string; error?: string } } };
}

async function recordedMetric(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^aeb_env_episodes_recorded_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** Polls until `check` holds (or `ms` pass). */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

const unavailable = typeof tmpfs === "string" ? tmpfs : undefined;

describe.skipIf(unavailable !== undefined)(
  `a full disk under aeb serve --record (tmpfs)${unavailable !== undefined ? `: skipped, ${unavailable}` : ""}`,
  () => {
    it("one process: every acknowledged episode is on disk once, no torn line; healthz and the metric say so; freed space is noticed and the retries are written once", async () => {
      if (typeof tmpfs === "string") return;
      const dir = directoryIn(tmpfs, "single");
      const recorder = new EpisodeRecorder(dir);
      const server = await buildServer({
        scenarios,
        user: new OfflineSimulatedUser(),
        secret: SECRET,
        recording: { condition: "train", write: (record) => recorder.append(record), health: () => recorder.health },
      });
      try {
        tmpfs.fill(24 * 1024);
        const send = injectSender(server.app);
        const played: PlayedEpisode[] = await Promise.all(resets(30, "single").map((reset) => playEpisode(send, reset, () => false)));
        const acknowledged = played.filter((episode) => episode.acknowledged).map((episode) => episode.episodeId);
        const refused = played.filter((episode) => !episode.acknowledged);
        // A smaller episode may have fitted after a bigger one failed (and made the recorder well
        // again): fill the last bytes, and send a refused step again, so the recorder is failing now.
        tmpfs.fill(0);
        const answer = await send("/v1/step", refused[0]?.pending);
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ code: "recording_failed", retryable: true });
        expect((answer.body as { error: string }).error).toMatch(
          /could not record the finished episode \(its disk is full\); the step was not acknowledged/,
        );
        const onDisk = episodesOnDisk(dir);
        console.log(`full disk, one process: ${acknowledged.length} acknowledged, ${onDisk.size} on disk, ${refused.length} refused`);
        expect(acknowledged.length).toBeGreaterThan(0);
        expect(refused.length, "the disk never filled").toBeGreaterThan(0);
        expect(
          refused.every((episode) => episode.failures.length === 1 && episode.failures[0] === 503 && episode.pending !== undefined),
        ).toBe(true);
        expect(played.every((episode) => episode.acknowledged || episode.pending !== undefined)).toBe(true);
        expectAcknowledgedOnDiskOnce(acknowledged, onDisk);
        const failing = await server.app.inject({ method: "GET", url: "/healthz" });
        expect(failing.statusCode).toBe(503);
        expect(failing.json()).toMatchObject({
          status: "recorder_failing",
          recorder: { state: "failing", error: "no space left on the device (ENOSPC)" },
        });
        expect((await server.app.inject({ method: "GET", url: "/metrics" })).body).toContain(
          `aeb_env_episodes_recorded_total ${onDisk.size}\n`,
        );

        tmpfs.freeSpace();
        // Noticed without a client: the recorder tries its latest failed episode again every second.
        expect(await eventually(async () => (await server.app.inject({ method: "GET", url: "/healthz" })).statusCode === 200, 5000)).toBe(
          true,
        );
        for (const episode of refused) expect(await finishStep(send, episode.pending)).toBe(true);
        const after = episodesOnDisk(dir);
        expectAcknowledgedOnDiskOnce(
          played.map((episode) => episode.episodeId),
          after,
        );
        expect(after.size).toBe(30);
        expect((await server.app.inject({ method: "GET", url: "/metrics" })).body).toContain("aeb_env_episodes_recorded_total ");
      } finally {
        tmpfs.freeSpace();
        await server.close();
        await recorder.close();
      }
    });

    it("--workers 2: the primary confirms each episode; the same guarantees", async () => {
      if (typeof tmpfs === "string") return;
      const dir = directoryIn(tmpfs, "workers");
      const server = await startServe(["--port", "0", "--workers", "2", "--record", dir]);
      try {
        tmpfs.fill(24 * 1024);
        const send = fetchSender(() => server.url);
        const played = await Promise.all(resets(30, "workers").map((reset) => playEpisode(send, reset, () => false)));
        const acknowledged = played.filter((episode) => episode.acknowledged).map((episode) => episode.episodeId);
        const refused = played.filter((episode) => !episode.acknowledged);
        tmpfs.fill(0);
        const answer = await send("/v1/step", refused[0]?.pending);
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ code: "recording_failed", retryable: true });
        expect((answer.body as { error: string }).error).toMatch(
          /could not record the finished episode \(its disk is full\); the step was not acknowledged/,
        );
        const onDisk = episodesOnDisk(dir);
        console.log(`full disk, --workers 2: ${acknowledged.length} acknowledged, ${onDisk.size} on disk, ${refused.length} refused`);
        expect(acknowledged.length).toBeGreaterThan(0);
        expect(refused.length, "the disk never filled").toBeGreaterThan(0);
        expect(refused.every((episode) => episode.failures.length === 1 && episode.failures[0] === 503)).toBe(true);
        expectAcknowledgedOnDiskOnce(acknowledged, onDisk);
        // Either worker answers /healthz: both were told by the primary.
        for (let probe = 0; probe < 4; probe += 1)
          expect((await health(server.url)).body).toMatchObject({ status: "recorder_failing", recorder: { state: "failing" } });
        // A worker started now (the primary replaces a killed one) has sent no episode: it is told too.
        const [killed] = workersOf(server.child.pid!);
        process.kill(killed!, "SIGKILL");
        expect(
          await eventually(async () => /listens \(it replaces one that exited\)/.test(server.stderr()), 20_000),
          "the primary did not replace the killed worker",
        ).toBe(true);
        // A fresh connection each time: the cluster hands connections to its workers in turn.
        for (let probe = 0; probe < 8; probe += 1)
          expect((await health(server.url, { fresh: true })).body).toMatchObject({
            status: "recorder_failing",
            recorder: { state: "failing" },
          });
        expect(await recordedMetric(server.url)).toBe(onDisk.size);

        tmpfs.freeSpace();
        expect(await eventually(async () => (await health(server.url)).status === 200, 5000)).toBe(true);
        for (const episode of refused) expect(await finishStep(send, episode.pending)).toBe(true);
        const after = episodesOnDisk(dir);
        expectAcknowledgedOnDiskOnce(
          played.map((episode) => episode.episodeId),
          after,
        );
        expect(after.size).toBe(30);
        expect(server.stderr()).toMatch(/cannot record finished episodes in .* \(no space left on the device \(ENOSPC\)\)/);
      } finally {
        tmpfs.freeSpace();
        server.child.kill("SIGTERM");
        expect(await server.exited).toBe(0);
      }
    });
  },
);

/** The worker processes of a cluster primary. */
function workersOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

describe("SIGKILL under aeb serve --record", () => {
  for (const workers of [1, 2]) {
    const kills = workers === 1 ? ["server", "server"] : ["primary", "worker", "primary"];
    it(`${workers === 1 ? "one process" : "--workers 2"}: SIGKILLs (${kills.join(", ")}) lose none of the acknowledged episodes, and none is written twice`, async () => {
      const dir = join(temporaryDirectory(), "train");
      const port = await freePort();
      const args = ["--port", String(port), "--workers", String(workers), "--record", dir, "--mock-user-latency", "20"];
      let server = await startServe(args);
      let starts = 1;
      // Each kill waits for traffic, not for a clock: on a fast machine the 40 episodes can all end
      // before a timer fires, and then no kill hits a request. A kill comes once this many more
      // steps were answered since the last one, with requests in flight.
      let answered = 0;
      let inFlight = 0;
      const fetchSend = fetchSender(() => `http://127.0.0.1:${port}`);
      const send: Send = async (path, body) => {
        inFlight += 1;
        try {
          const answer = await fetchSend(path, body);
          if (answer.status === 200) answered += 1;
          return answer;
        } finally {
          inFlight -= 1;
        }
      };
      const deadline = Date.now() + 90_000;
      let finished = false;
      const playing = Promise.all(
        resets(40, `kill${workers}`).map((reset) => playEpisode(send, reset, () => Date.now() < deadline)),
      ).finally(() => (finished = true));
      for (const target of kills) {
        const from = answered;
        while (!finished && !(answered - from >= 25 && inFlight > 0)) await new Promise((resolve) => setTimeout(resolve, 5));
        if (target === "worker") {
          // The primary starts a new worker; the killed one's in-flight steps were never answered.
          const [worker] = workersOf(server.child.pid!);
          expect(worker, "no worker process found").toBeDefined();
          process.kill(worker!, "SIGKILL");
          continue;
        }
        server.child.kill("SIGKILL");
        await server.exited;
        server = await startServe(args);
        starts += 1;
      }
      const played = await playing;
      const failedRequests = played.reduce((sum, episode) => sum + episode.failures.length, 0);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      const onDisk = episodesOnDisk(dir);
      const acknowledged = played.filter((episode) => episode.acknowledged).map((episode) => episode.episodeId);
      console.log(
        `SIGKILL (${kills.join(", ")}), ${workers} worker(s): ${acknowledged.length} acknowledged, ${onDisk.size} on disk, ${failedRequests} requests failed (retried) during the kills`,
      );
      expect(acknowledged).toHaveLength(40);
      expect(failedRequests, "no kill hit a request: the test proves nothing").toBeGreaterThan(0);
      expectAcknowledgedOnDiskOnce(acknowledged, onDisk);
      expect(onDisk.size).toBe(40);
      const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as { invocations: Array<{ outcome: string }> };
      expect(manifest.invocations).toHaveLength(starts);
      expect(manifest.invocations.at(-1)!.outcome).toBe("stopped");
    }, 150_000);
  }
});
