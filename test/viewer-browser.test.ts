/**
 * `aeb view` in a real browser (Debian's Chromium driven by playwright-core, as the report's
 * browser test): the report page with its charts, filtering, the search, a dialogue page, the
 * side-by-side view; the console stays clean, nothing outside the viewer is requested, and hostile
 * transcript text stays text. Screenshots go to $AEB_SCREENSHOT_DIR/viewer-browser/ when that is
 * set (printed), else to a temporary directory removed after the tests.
 *
 * Chromium is required on CI (.ci/run installs it); elsewhere the test skips with a message.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DialogueRecord } from "../src/core/dialogue.js";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import type { DialoguePage } from "../src/viewer/api-schemas.js";
import { buildViewer, type Viewer } from "../src/viewer/viewer-app.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumPresent, onCi, screenshotDirectory, warnWhenSkipped } from "./helpers/chromium.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";
import { COOPERATIVE_ID_INDEX, HOSTILE, makeEditedRun, THINK_TEXT } from "./helpers/viewer-runs.js";

// Made when a test first needs it: a file whose tests are all skipped (no Chromium) makes no directory,
// since the after-file cleanup does not run for it.
let screenshotDir: string | undefined;
const screenshots = (): string => (screenshotDir ??= screenshotDirectory("viewer-browser"));

warnWhenSkipped("viewer-browser.test.ts");

let browser: Browser;
let context: BrowserContext;
let page: Page;
let viewer: Viewer;
let base: string;
let plainRecords: DialogueRecord[];
const consoleErrors: string[] = [];
const outsideRequests: string[] = [];

async function apiTotal(query: string): Promise<number> {
  return (await viewer.app.inject({ method: "GET", url: `/api/dialogues?${query}` })).json<DialoguePage>().total;
}

async function shot(name: string): Promise<string> {
  const path = join(screenshots(), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The table's status line once the rows for `total` dialogues are drawn. */
async function waitForTotal(total: number): Promise<void> {
  await page.waitForSelector(`p.status[data-total="${total}"]`, { timeout: 10_000 });
}

describe.skipIf(!chromiumPresent && !onCi)("aeb view in headless Chromium", () => {
  beforeAll(async () => {
    if (!chromiumPresent) return;
    const root = temporaryDirectory("aeb-viewer-browser-");
    const plain = join(root, "plain");
    const run = await runCli(["run", "--suite", "starter", "--out", plain, "--no-progress"]);
    expect(run.code, run.stderr).toBe(0);
    plainRecords = readDialogueRecords(plain).records;
    const edited = join(root, "edited");
    makeEditedRun(plainRecords, edited);
    viewer = await buildViewer({ dirs: [plain, edited] });
    base = await viewer.listen({ host: "127.0.0.1", port: 0 });
    mkdirSync(screenshots(), { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith(base)) await route.continue();
      else {
        outsideRequests.push(url);
        await route.abort();
      }
    });
    page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") consoleErrors.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
  });

  it("opens on the report: facts, headline, and the six charts drawn as images", async () => {
    if (!chromiumPresent) throw new Error(`Chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
    await page.goto(base, { waitUntil: "networkidle" });
    await page.waitForSelector("section.report table td");
    const headline = await page.$$eval('table[data-table="headline"] tbody tr td:first-child', (cells) =>
      cells.map((cell) => cell.textContent),
    );
    expect(headline).toEqual(["formulaic", "sycophant", "advice", "labeler", "attuned"]);
    // Under the offline user HID is the reward's move test, and the page says so; the lexicon baseline is no ECS.
    const headers = await page.$$eval('table[data-table="headline"] thead th', (cells) => cells.map((cell) => cell.textContent));
    expect(headers).toContain("HID (offline: move test)");
    expect(await page.innerText("section.report")).toContain(
      "under the offline simulated user, HID is the same move test that sets the reward",
    );
    expect(
      await page.$$eval('table[data-table="headline"] tbody tr td:nth-child(6)', (cells) => cells.map((cell) => cell.textContent)),
    ).toEqual(Array(5).fill("n/a (no model judge)"));
    type Image = { complete: boolean; naturalWidth: number; naturalHeight: number };
    await page.waitForFunction('[...document.querySelectorAll("figure.chart img")].every((image) => image.complete)', undefined, {
      timeout: 15_000,
    });
    const charts = await page.$$eval("figure.chart img", (images) =>
      images.map((image) => ({ width: (image as unknown as Image).naturalWidth, height: (image as unknown as Image).naturalHeight })),
    );
    expect(charts).toHaveLength(6);
    for (const chart of charts) {
      expect(chart.width).toBeGreaterThan(100);
      expect(chart.height).toBeGreaterThan(50);
    }
    console.info(`viewer screenshot: ${await shot("report")}`);
  });

  it("filters the table by condition and emotion, and searches the replies", async () => {
    await page.goto(`${base}#/dialogues`);
    await waitForTotal(120);
    await page.click('details[data-filter="condition"] summary');
    await page.check('details[data-filter="condition"] input[value="labeler"]');
    await waitForTotal(24);
    // The table's ECS column is a model judge's only; the lexicon baseline has its own column; HID says what it is in these runs.
    const headers = await page.$$eval("table.dialogue-table thead th", (cells) => cells.map((cell) => cell.textContent));
    expect(headers).toContain("ECS (model judge)");
    expect(headers).toContain("lexicon baseline");
    expect(headers).not.toContain("ECS");
    expect(headers).toContain("HID (offline runs: move test)");
    const ecsColumn = headers.indexOf("ECS (model judge)") + 1;
    const baselineColumn = headers.indexOf("lexicon baseline") + 1;
    const firstPlainRow = "table.dialogue-table tbody tr:first-child";
    expect(await page.textContent(`${firstPlainRow} td:nth-child(${ecsColumn})`)).toBe("n/a");
    expect(Number(await page.textContent(`${firstPlainRow} td:nth-child(${baselineColumn})`))).toBeGreaterThan(0);
    const conditions = await page.$$eval("table.dialogue-table tbody tr td:nth-child(2)", (cells) => cells.map((cell) => cell.textContent));
    expect(conditions).toHaveLength(24);
    expect(new Set(conditions)).toEqual(new Set(["labeler"]));
    await page.click('details[data-filter="condition"] summary');
    // The median final emotion of the condition: the range keeps some of its dialogues, not all.
    const finalsOfCondition = plainRecords
      .filter((record) => record.condition === "labeler")
      .map((record) => record.final.emotion)
      .sort((a, b) => a - b);
    const threshold = finalsOfCondition[Math.floor(finalsOfCondition.length / 2)]!;
    await page.fill('input[name="emotionMax"]', String(threshold));
    await page.press('input[name="emotionMax"]', "Enter");
    const narrowed = await apiTotal(`condition=labeler&emotionMax=${threshold}`);
    expect(narrowed).toBeGreaterThan(0);
    expect(narrowed).toBeLessThan(24);
    await waitForTotal(narrowed);
    const finals = await page.$$eval("table.dialogue-table tbody tr td:nth-child(6)", (cells) =>
      cells.map((cell) => Number(cell.textContent)),
    );
    expect(finals).toHaveLength(narrowed);
    expect(finals.every((value) => value <= threshold)).toBe(true);
    expect(page.url()).toContain("condition=labeler");
    expect(page.url()).toContain(`emotionMax=${threshold}`);
    console.info(`viewer screenshot: ${await shot("filtered")}`);

    await page.click("text=Clear all");
    await waitForTotal(120);
    await page.fill('input[name="q"]', "car park");
    const found = await apiTotal("q=car%20park");
    expect(found).toBeGreaterThan(0);
    await waitForTotal(found);
    // Hostile text is searched as text, and the page shows it only as text.
    await page.fill('input[name="q"]', "<img src=x");
    await waitForTotal(1);
    expect(await page.textContent("table.dialogue-table tbody")).toContain(plainRecords[COOPERATIVE_ID_INDEX]!.id);
    console.info(`viewer screenshot: ${await shot("search")}`);
  });

  it("shows a dialogue: cooperative label, think text folded, the unappraised reply, judges' predictions, the emotion line, hostile text inert", async () => {
    await page.click("table.dialogue-table tbody a.dialogue-link");
    await page.waitForSelector("article.dialogue .turn");
    const record = readDialogueRecords(join(viewer.runs[1]!.index.dir)).records[COOPERATIVE_ID_INDEX]!;
    expect(await page.$$eval("article.dialogue .turn", (turns) => turns.length)).toBe(record.turns.length);
    const body = await page.innerText("article.dialogue");
    expect(body).toContain("cooperative user (SAGE/RLVER profile)");
    expect(body.toLowerCase()).not.toContain("manipulation turn");
    expect(body).toContain("not appraised: the preset's loop stops at this reply");
    expect(body).toContain(HOSTILE);
    expect(body).toContain("predicted");
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: boolean }).__pwned === true)).toBe(false);
    expect(await page.$$("article.dialogue img")).toHaveLength(0);
    // The think text is folded until opened.
    expect(await page.isVisible(`text=${THINK_TEXT}`)).toBe(false);
    await page.click("details.think summary");
    expect(await page.isVisible(`text=${THINK_TEXT}`)).toBe(true);
    // One line for the true emotion and one per judge with predictions, with a legend.
    expect(await page.$$eval("figure.emotion-line g.series polyline", (lines) => lines.length)).toBe(3);
    expect(await page.$$eval("figure.emotion-line g.series circle", (points) => points.length)).toBeGreaterThan(record.turns.length);
    const legend = await page.innerText("figure.emotion-line ul.legend");
    expect(legend).toContain("second-judge: predicted");
    expect(legend).toContain("offline-lexicon (ECS lexicon baseline, not a model judge): predicted");
    expect(await page.innerText("div.judges")).toContain("offline-lexicon (ECS lexicon baseline, not a model judge)");
    console.info(`viewer screenshot: ${await shot("dialogue")}`);

    // An adversarial dialogue marks its manipulation turn.
    const adversarial = plainRecords.find((candidate) => candidate.type === "escalation")!;
    await page.goto(`${base}#/dialogue/0/${encodeURIComponent(adversarial.id)}`);
    await page.waitForSelector(`.turn[data-turn="${adversarial.manipulationTurn}"] .turn-label.manipulation`);
  });

  it("puts the same scenario and repeat of every condition side by side", async () => {
    await page.click("text=This scenario and repeat in every condition, side by side");
    await page.waitForSelector("table.columns thead th");
    const columns = await page.$$eval("table.columns thead th", (cells) => cells.map((cell) => cell.getAttribute("data-condition")));
    expect(columns).toEqual([...viewer.runs[0]!.index.facets.conditions, ...viewer.runs[1]!.index.facets.conditions]);
    expect(await page.$$eval("table.columns figure.emotion-line", (figures) => figures.length)).toBe(columns.length);
    expect(await page.$$eval("table.columns tbody tr[data-turn]", (rows) => rows.length)).toBeGreaterThan(3);
    // A legend: every condition shown, and each judge with predictions, the lexicon baseline named for what it is.
    const legendConditions = await page.$$eval("figure.side-legend li[data-legend-condition]", (items) =>
      items.map((item) => item.getAttribute("data-legend-condition")),
    );
    expect(legendConditions).toEqual(viewer.runs[0]!.index.facets.conditions);
    const legendText = await page.innerText("figure.side-legend");
    expect(legendText).toContain("offline-lexicon (ECS lexicon baseline, not a model judge): predicted");
    expect(legendText).toContain("second-judge: predicted");
    // Stable colours: a condition's line has its legend colour in both runs' columns; a judge's line likewise.
    const strokes = await page.$$eval("table.columns tbody tr:first-child td", (cells) =>
      cells.map((cell) => [...cell.querySelectorAll("g.series polyline")].map((line) => line.getAttribute("stroke"))),
    );
    const legendStroke = await page.$$eval("figure.side-legend li", (items) =>
      Object.fromEntries(
        items.map((item) => [
          item.getAttribute("data-legend-condition") ?? item.getAttribute("data-legend-judge") ?? "",
          item.querySelector("line")?.getAttribute("stroke") ?? "",
        ]),
      ),
    );
    columns.forEach((condition, index) => expect(strokes[index]![0], `${condition} in column ${index}`).toBe(legendStroke[condition!]));
    const lexiconColours = new Set(strokes.map((lines) => lines[1]));
    expect(lexiconColours).toEqual(new Set([legendStroke["offline-lexicon"]]));
    expect(new Set(strokes.filter((lines) => lines.length === 3).map((lines) => lines[2]))).toEqual(
      new Set([legendStroke["second-judge"]]),
    );
    expect(new Set(Object.values(legendStroke).filter((colour) => colour !== "")).size).toBe(legendConditions.length + 2);
    // One x axis for every column: the same last step, the longest dialogue's.
    const lastSteps = await page.$$eval("table.columns figure.emotion-line svg", (charts) =>
      charts.map((chart) => [...chart.querySelectorAll("text.axis")].at(-1)?.textContent),
    );
    expect(new Set(lastSteps).size).toBe(1);
    console.info(`viewer screenshot: ${await shot("side-by-side")}`);
  });

  it("logged no console error or warning and requested nothing outside the viewer", () => {
    expect(consoleErrors).toEqual([]);
    expect(outsideRequests).toEqual([]);
  });
});
