/**
 * `npm run bench:view`: how fast `aeb view` opens and filters a 100,000-dialogue run, and how much
 * memory its server holds. The run is made once with the offline runner (the five reference agents
 * x 50 scenarios of suite `full` x 400 repeats, as bench:scale), then the viewer is started
 * `--repeats` times, each in a fresh process, and measured:
 *
 * - listening: from spawning `aeb view DIR` to its "open http://..." line (Node start-up, the
 *   streamed index pass over dialogues.jsonl, the built front end read into memory);
 * - API: the first page of the dialogue table, the report page (headline and tables), a filtered
 *   page, a search over every reply (first, then from the kept result), one dialogue, the six
 *   charts (rendered on first request);
 * - browser (when Debian's Chromium is at /usr/bin/chromium): from navigating to the report until
 *   its headline table is drawn, and to the dialogue table until its first row is drawn, then a
 *   filter set through the URL until the filtered rows are drawn; the browser is started before
 *   the server, so its own start-up is not counted;
 * - memory: the server's RSS once it listens and after every request above, and its peak
 *   (getrusage, written at exit by bench/max-rss.mjs).
 *
 * Times are wall clock, medians over the repeats. The file is in the page cache after the first
 * repeat (as it is when a run has just been written).
 *
 * Flags: --repeats 5  --dialogues 100000 (the size of the run made; a multiple of 250)
 *        --dir DIR (view an existing run directory instead of making one)  --json FILE
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, fixed, machine, markdownTable, median, parseArgs, processRssBytes, ROOT } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const repeats = Number(flags.get("repeats") ?? 5);
const CHROMIUM = process.env.AEB_CHROMIUM ?? "/usr/bin/chromium";
const TYPES = "escalation,gaslighting,mood_reversal,emotional_flooding,validation_manipulation";
/** Five agents x 50 scenarios: the dialogues of one repeat of the suite. */
const DIALOGUES_PER_REPEAT = 5 * 50;
const SUITE_REPEATS = Math.max(1, Math.round(Number(flags.get("dialogues") ?? 100_000) / DIALOGUES_PER_REPEAT));

interface Sample {
  listenMs: number;
  /** What the viewer itself reports for building its index (the rest of listenMs is Node's start-up and loading). */
  indexMs: number;
  firstPageMs: number;
  reportMs: number;
  filteredMs: number;
  searchColdMs: number;
  searchCommonMs: number;
  searchKeptMs: number;
  dialogueMs: number;
  chartsMs: number;
  browserReportMs: number | null;
  browserTableMs: number | null;
  browserFilteredMs: number | null;
  rssListeningMB: number;
  rssAfterMB: number;
  peakRssMB: number;
  searchMatches: number;
  searchCommonMatches: number;
  filteredTotal: number;
}

/** A word of a few scenarios (few matches), and one of the formulaic agent's stock phrases (many). */
const RARE_PHRASE = "landlord";
const COMMON_PHRASE = "sorry to hear";

function makeRun(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, "run", "--suite", "full", "--types", TYPES, "--repeats", String(SUITE_REPEATS), "--seed", "1", "--out", dir, "--no-progress"],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`aeb run exited with ${code}`))));
  });
}

/** Starts `aeb view DIR --port 0`; resolves with the page's URL once it listens. */
function startViewer(dir: string, rssFile: string): Promise<{ child: ChildProcess; url: string; listenMs: number; indexMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", join(ROOT, "bench", "max-rss.mjs"), CLI, "view", dir, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AEB_BENCH_MAXRSS_FILE: rssFile },
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /open (http:\/\/\S+)/.exec(stdout)?.[1];
      const indexSeconds = /indexed in ([\d.]+) s/.exec(stdout)?.[1];
      if (url !== undefined) resolve({ child, url, listenMs: performance.now() - started, indexMs: Number(indexSeconds) * 1000 });
    });
    child.once("exit", (code) => reject(new Error(`aeb view exited with ${code} before listening: ${stderr.slice(-2000)}`)));
  });
}

/** Non-empty lines of a file, counted in chunks: a 100,000-dialogue dialogues.jsonl (about 700 MB) is longer than the longest string V8 makes. */
function countLines(path: string): number {
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  let lines = 0;
  let previous = 0x0a;
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      for (let index = 0; index < read; index += 1) {
        const byte = chunk[index] as number;
        if (byte === 0x0a && previous !== 0x0a) lines += 1;
        previous = byte;
      }
    }
  } finally {
    closeSync(fd);
  }
  return previous === 0x0a ? lines : lines + 1;
}

async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await task();
  return { ms: performance.now() - started, value };
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface Browser {
  newPage(): Promise<{
    goto(url: string, options?: { waitUntil?: "commit" }): Promise<unknown>;
    waitForSelector(selector: string, options?: { timeout?: number }): Promise<unknown>;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}

async function launchBrowser(): Promise<Browser | null> {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import("playwright-core");
  return (await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  })) as unknown as Browser;
}

async function measure(dir: string, browser: Browser | null, scratch: string): Promise<Sample> {
  const rssFile = join(scratch, `maxrss-${Date.now()}.json`);
  const { child, url, listenMs, indexMs } = await startViewer(dir, rssFile);
  try {
    const rssListening = processRssBytes(child.pid as number) ?? Number.NaN;
    const firstPage = await timed(() => getJson<{ total: number }>(`${url}api/dialogues`));
    const report = await timed(() => getJson(`${url}api/runs/0/report`));
    const filtered = await timed(() =>
      getJson<{ total: number }>(
        `${url}api/dialogues?condition=attuned&condition=advice&type=escalation&emotionOf=lowest&emotionMax=40&sort=fs`,
      ),
    );
    const searchCold = await timed(() => getJson<{ total: number }>(`${url}api/dialogues?q=${encodeURIComponent(RARE_PHRASE)}`));
    const searchCommon = await timed(() => getJson<{ total: number }>(`${url}api/dialogues?q=${encodeURIComponent(COMMON_PHRASE)}`));
    const searchKept = await timed(() =>
      getJson<{ total: number }>(`${url}api/dialogues?q=${encodeURIComponent(COMMON_PHRASE)}&offset=50`),
    );
    const firstId = (await getJson<{ rows: Array<{ id: string }> }>(`${url}api/dialogues?limit=1`)).rows[0]!.id;
    const dialogue = await timed(() => getJson(`${url}api/dialogue?run=0&id=${encodeURIComponent(firstId)}`));
    const charts = await timed(async () => {
      const page = await getJson<{ charts: Array<{ url: string }> }>(`${url}api/runs/0/report`);
      for (const chart of page.charts) {
        const response = await fetch(new URL(chart.url, url));
        if (!response.ok) throw new Error(`${chart.url}: ${response.status}`);
        await response.text();
      }
    });
    let browserReportMs: number | null = null;
    let browserTableMs: number | null = null;
    let browserFilteredMs: number | null = null;
    if (browser !== null) {
      // A second server process would have a cold cache; this one has answered once. Measure the
      // browser on a fresh one, so the report's first paint includes building it.
      const fresh = await startViewer(dir, join(scratch, `maxrss-fresh-${Date.now()}.json`));
      try {
        const page = await browser.newPage();
        browserReportMs = (
          await timed(async () => {
            await page.goto(`${fresh.url}#/report/0`, { waitUntil: "commit" });
            await page.waitForSelector("section.report table td", { timeout: 60_000 });
          })
        ).ms;
        browserTableMs = (
          await timed(async () => {
            await page.goto(`${fresh.url}#/dialogues`, { waitUntil: "commit" });
            await page.waitForSelector("table.dialogue-table tbody tr", { timeout: 60_000 });
          })
        ).ms;
        browserFilteredMs = (
          await timed(async () => {
            await page.goto(`${fresh.url}#/dialogues?condition=attuned&type=gaslighting&sort=fs`, { waitUntil: "commit" });
            await page.waitForSelector("table.dialogue-table tbody tr td:nth-child(3) >> text=gaslighting", { timeout: 60_000 });
          })
        ).ms;
        await page.close();
      } finally {
        fresh.child.kill("SIGTERM");
        await new Promise((resolve) => fresh.child.once("exit", resolve));
      }
    }
    const rssAfter = processRssBytes(child.pid as number) ?? Number.NaN;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRssKiB: number };
    return {
      listenMs,
      indexMs,
      firstPageMs: firstPage.ms,
      reportMs: report.ms,
      filteredMs: filtered.ms,
      searchColdMs: searchCold.ms,
      searchCommonMs: searchCommon.ms,
      searchKeptMs: searchKept.ms,
      dialogueMs: dialogue.ms,
      chartsMs: charts.ms,
      browserReportMs,
      browserTableMs,
      browserFilteredMs,
      rssListeningMB: rssListening / 2 ** 20,
      rssAfterMB: rssAfter / 2 ** 20,
      peakRssMB: usage.maxRssKiB / 1024,
      searchMatches: searchCold.value.total,
      searchCommonMatches: searchCommon.value.total,
      filteredTotal: filtered.value.total,
    };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}

async function main(): Promise<void> {
  const info = machine();
  const scratch = mkdtempSync(join(tmpdir(), "aeb-view-bench-"));
  const dir = flags.get("dir") ?? join(scratch, "run");
  try {
    if (!flags.has("dir")) {
      process.stderr.write(`making a run of ${SUITE_REPEATS * DIALOGUES_PER_REPEAT} offline dialogues...\n`);
      await makeRun(dir);
    }
    const dialogues = countLines(join(dir, "dialogues.jsonl"));
    const browser = await launchBrowser();
    if (browser === null) process.stderr.write(`no Chromium at ${CHROMIUM}: browser times are left out\n`);
    const samples: Sample[] = [];
    try {
      for (let repeat = 0; repeat < repeats; repeat += 1) {
        process.stderr.write(`viewer start ${repeat + 1}/${repeats}...\n`);
        samples.push(await measure(dir, browser, scratch));
      }
    } finally {
      await browser?.close();
    }

    const med = (pick: (sample: Sample) => number | null, digits = 0) => {
      const values = samples.map(pick).filter((value): value is number => value !== null);
      return values.length === 0 ? "n/a" : fixed(median(values), digits);
    };
    const lines: string[] = [];
    const print = (text = "") => {
      lines.push(text);
      process.stdout.write(`${text}\n`);
    };
    print("# AEB viewer benchmark");
    print();
    print(
      `machine: ${info.nproc} CPUs (${info.cpu}), ${info.memoryGiB} GiB, node ${info.node}, ${info.os}, load average at start ${info.loadAverage.join(" ")}, at end ${machine().loadAverage.join(" ")}`,
    );
    print(`command: npm run bench:view${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
    print(
      `run directory: ${dialogues} dialogues, dialogues.jsonl ${fixed(statSync(join(dir, "dialogues.jsonl")).size / 2 ** 20, 1)} MB; ${samples.length} viewer starts, medians`,
    );
    print();
    print(
      markdownTable(
        ["what", "median"],
        [
          ["`aeb view DIR` listening (spawn to URL: start-up + index)", `${med((sample) => sample.listenMs)} ms`],
          ["of which the index pass (as the viewer reports it)", `${med((sample) => sample.indexMs)} ms`],
          ["first page of the dialogue table (API)", `${med((sample) => sample.firstPageMs, 1)} ms`],
          ["report page: headline and tables (API, first request)", `${med((sample) => sample.reportMs)} ms`],
          [`filtered page (API; ${samples[0]?.filteredTotal ?? "?"} rows match)`, `${med((sample) => sample.filteredMs, 1)} ms`],
          [
            `search over every reply, first time: "${RARE_PHRASE}" (${samples[0]?.searchMatches ?? "?"} dialogues match)`,
            `${med((sample) => sample.searchColdMs)} ms`,
          ],
          [
            `search over every reply, first time: "${COMMON_PHRASE}" (${samples[0]?.searchCommonMatches ?? "?"} match)`,
            `${med((sample) => sample.searchCommonMs)} ms`,
          ],
          ["the same search, next page (result kept)", `${med((sample) => sample.searchKeptMs, 1)} ms`],
          ["one dialogue, read back by offset", `${med((sample) => sample.dialogueMs, 1)} ms`],
          ["the six charts, rendered on first request", `${med((sample) => sample.chartsMs)} ms`],
          ["browser: report headline drawn (fresh server)", `${med((sample) => sample.browserReportMs)} ms`],
          ["browser: dialogue table's first row drawn", `${med((sample) => sample.browserTableMs)} ms`],
          ["browser: filtered table drawn", `${med((sample) => sample.browserFilteredMs)} ms`],
          ["server RSS once listening", `${med((sample) => sample.rssListeningMB)} MB`],
          ["server RSS after all of the above", `${med((sample) => sample.rssAfterMB)} MB`],
          ["server peak RSS", `${med((sample) => sample.peakRssMB)} MB`],
        ],
      ),
    );
    const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `view-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    mkdirSync(join(jsonPath, ".."), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify({ machine: info, dialogues, samples }, null, 2)}\n`);
    writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${lines.join("\n")}\n`);
    process.stderr.write(`raw results: ${jsonPath}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
