/**
 * report.html in a real browser (Debian's Chromium driven by playwright-core): every chart drew
 * an SVG of non-zero size with marks, the console stayed clean, the page asked for nothing
 * outside itself, and hostile transcript text stayed text. Saves screenshots for a human look in
 * $AEB_SCREENSHOT_DIR/report-browser/ when that is set (else in a temporary directory removed after the tests).
 *
 * Chromium is required on CI (.ci/run installs it); elsewhere the test skips with a message.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, cpSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumPresent, onCi, screenshotDirectory, warnWhenSkipped } from "./helpers/chromium.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

/** Where the screenshots go (see screenshotDirectory). */
// Made when a test first needs it: a file whose tests are all skipped (no Chromium) makes no directory,
// since the after-file cleanup does not run for it.
let screenshotDir: string | undefined;
const screenshots = (): string => (screenshotDir ??= screenshotDirectory("report-browser"));

warnWhenSkipped("report-browser.test.ts");

const CHART_IDS = [
  "chart-fs",
  "chart-type-heatmap",
  "chart-emotion-trajectory",
  "chart-ecs-vs-fs",
  "chart-ecs-phase",
  "chart-length-vs-fs",
];
const HOSTILE = '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true">';
/** Dialogues of each run below: five reference agents x the starter suite x 2 repeats. */
const DIALOGUES = 5 * filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" }).length * 2;

interface ChartCheck {
  id: string;
  width: number;
  height: number;
  marks: number;
  points: number;
  text: string;
}

interface PageCheck {
  charts: ChartCheck[];
  consoleErrors: string[];
  outsideRequests: string[];
  pwned: boolean;
  bodyText: string;
  layout: PageLayout;
  /** Comparison tables folded away (closed <details>, one summary line tall). */
  foldedComparisons: number;
}

/** Where things sit on the page, in CSS pixels from the top of the document. */
interface PageLayout {
  pageHeight: number;
  headlineTop: number;
  firstChartTop: number;
  /** The first table below the headline's (by type, ECS, comparisons...). */
  firstTableTop: number;
}

/** Measures {@link PageLayout} in the page (a string: the page's DOM types are not this file's). */
const LAYOUT_SCRIPT = `(() => {
  const top = (element) => (element === null || element === undefined ? Number.NaN : element.getBoundingClientRect().top + window.scrollY);
  const tables = [...document.querySelectorAll("table")].filter((table) => table.closest("#headline") === null);
  return { pageHeight: document.documentElement.scrollHeight, headlineTop: top(document.querySelector("#headline table")), firstChartTop: top(document.querySelector("figure.chart")), firstTableTop: top(tables[0]) };
})()`;

let browser: Browser;
let root: string;

function requireChromium(): void {
  if (!chromiumPresent)
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium); on CI the browser check of report.html may not be skipped`,
    );
}

/** Opens a report, checks it as a reader's browser sees it, and saves a full-page screenshot. */
async function openReport(file: string, screenshot: string): Promise<PageCheck> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const outsideRequests: string[] = [];
  const self = pathToFileURL(file).href;
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (url === self) await route.continue();
    else {
      outsideRequests.push(url);
      await route.abort();
    }
  });
  await page.goto(self, { waitUntil: "load" });
  const charts = await page.$$eval("figure.chart", (figures) =>
    figures.map((figure) => {
      const svg = figure.querySelector("svg");
      const box = svg?.getBoundingClientRect();
      return {
        id: figure.id,
        width: box?.width ?? 0,
        height: box?.height ?? 0,
        marks: svg === null ? 0 : svg.querySelectorAll('g[class*="role-mark"] > *').length,
        points: svg === null ? 0 : svg.querySelectorAll('[aria-roledescription="point"]').length,
        text: svg?.textContent ?? "",
      };
    }),
  );
  const pwned = await page.evaluate(() => (globalThis as unknown as { __pwned?: boolean }).__pwned === true);
  const bodyText = await page.innerText("body");
  const layout = await page.evaluate<PageLayout>(LAYOUT_SCRIPT);
  const foldedComparisons = await page.$$eval(
    "details.comparison",
    (folds) => folds.filter((fold) => !fold.hasAttribute("open") && fold.getBoundingClientRect().height < 40).length,
  );
  console.info(`${screenshot}: layout ${JSON.stringify(layout)}`);
  mkdirSync(screenshots(), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  await context.close();
  return { charts, consoleErrors, outsideRequests, pwned, bodyText, layout, foldedComparisons };
}

describe.skipIf(!chromiumPresent && !onCi)("report.html in headless Chromium", () => {
  beforeAll(async () => {
    // Without Chromium (only reached on CI) every test below fails with requireChromium's message.
    if (!chromiumPresent) return;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    root = temporaryDirectory("aeb-report-browser-");
    // aeb run's default config: the offline-lexicon ECS judge (the lexicon baseline) scores every dialogue.
    const run = await runCli(["run", "--suite", "starter", "--repeats", "2", "--out", join(root, "plain"), "--no-progress"]);
    expect(run.code, run.stderr).toBe(0);
    // A run configured without any ECS judge.
    const config = join(root, "no-ecs-judge.yaml");
    writeFileSync(config, "judges:\n  ecs: []\n");
    const unjudged = await runCli([
      "run",
      "--config",
      config,
      "--suite",
      "starter",
      "--repeats",
      "2",
      "--out",
      join(root, "unjudged"),
      "--no-progress",
    ]);
    expect(unjudged.code, unjudged.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("draws every chart of an offline aeb run, the ECS ones from the offline-lexicon judge, logs no error and loads nothing", async () => {
    requireChromium();
    const check = await openReport(join(root, "plain", "report.html"), join(screenshots(), "report-offline.png"));
    expect(check.charts.map((chart) => chart.id)).toEqual(CHART_IDS);
    for (const chart of check.charts) {
      expect(chart.width, chart.id).toBeGreaterThan(100);
      expect(chart.height, chart.id).toBeGreaterThan(50);
      expect(chart.marks, chart.id).toBeGreaterThan(0);
      expect(chart.text, chart.id).not.toContain("no ECS judge ran");
    }
    // Every dialogue and each of the 5 condition means, in one offline-lexicon panel.
    const dissociation = check.charts.find((chart) => chart.id === "chart-ecs-vs-fs")!;
    expect(dissociation.points).toBe(DIALOGUES + 5);
    expect(dissociation.text).toContain("offline-lexicon");
    const phases = check.charts.find((chart) => chart.id === "chart-ecs-phase")!;
    expect(phases.points).toBeGreaterThan(30);
    expect(phases.text).toContain("offline-lexicon");
    expect(check.charts.find((chart) => chart.id === "chart-length-vs-fs")!.points).toBeGreaterThan(DIALOGUES);
    expect(check.consoleErrors).toEqual([]);
    expect(check.outsideRequests).toEqual([]);
    expect(check.bodyText).toContain("Headline (per condition)");
    // The lexicon baseline is named for what it is, in its table and its chart panels, and is not the headline ECS.
    expect(check.bodyText).toContain("ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge");
    expect(check.bodyText).not.toContain("(the headline ECS)");
    expect(dissociation.text).toContain("not a model judge");
    expect(check.bodyText).not.toContain("No comparisons");
    // Read at a glance: the headline, then the charts, then the tables.
    expect(check.layout.headlineTop).toBeLessThan(check.layout.firstChartTop);
    expect(check.layout.firstChartTop).toBeLessThan(check.layout.firstTableTop);
    // The comparisons: the fs table against attuned is open, every other folded away (its rows not drawn).
    expect(check.bodyText).toContain("fs: each condition against the reference, attuned (4 pairs)");
    expect(check.foldedComparisons).toBeGreaterThan(3);
    expect(check.bodyText).toContain("HID (offline: move test)");
  });

  it("says no ECS judge ran in the ECS panels of a run without an ECS judge", async () => {
    requireChromium();
    const check = await openReport(join(root, "unjudged", "report.html"), join(screenshots(), "report-no-ecs.png"));
    expect(check.charts.map((chart) => chart.id)).toEqual(CHART_IDS);
    for (const chart of check.charts) {
      expect(chart.width, chart.id).toBeGreaterThan(100);
      expect(chart.height, chart.id).toBeGreaterThan(50);
      expect(chart.marks, chart.id).toBeGreaterThan(0);
    }
    for (const id of ["chart-ecs-vs-fs", "chart-ecs-phase"]) {
      const chart = check.charts.find((candidate) => candidate.id === id)!;
      expect(chart.text, id).toContain("no ECS judge ran");
      expect(chart.points, id).toBe(0);
    }
    expect(check.bodyText).toContain("ECS is n/a: no ECS judge ran.");
    expect(check.consoleErrors).toEqual([]);
    expect(check.outsideRequests).toEqual([]);
  });

  it("draws the ECS charts from judged dialogues, keeps hostile transcript text inert, and saves a screenshot", async () => {
    requireChromium();
    const dir = join(root, "judged");
    cpSync(join(root, "plain"), dir, { recursive: true });
    const lines = readFileSync(join(dir, "dialogues.jsonl"), "utf8").split("\n").filter(Boolean);
    const judged = lines.map((line, index) => {
      const record = JSON.parse(line) as {
        condition: string;
        final: { fs: number };
        turns: Array<{ agent: { text: string } }>;
        ecs?: unknown;
      };
      // A made-up judge (in place of the offline one) whose score loosely follows FS, so the dissociation plot has something to show.
      const score = Math.min(1, Math.max(0, 0.45 + 0.3 * record.final.fs + ((index % 7) - 3) / 40));
      const before = Math.min(1, score + 0.05);
      const after = Math.max(0, score - 0.08);
      record.ecs = {
        "cross-family-judge": {
          judge: "cross-family-judge",
          score,
          before,
          after,
          drop: before - after,
          spearman: null,
          turns: record.turns.length,
          estimates: [],
          errors: [],
        },
      };
      if (record.condition === "formulaic" && record.turns[0] !== undefined)
        record.turns[0].agent.text = `${HOSTILE} ${record.turns[0].agent.text}`;
      return JSON.stringify(record);
    });
    writeFileSync(join(dir, "dialogues.jsonl"), judged.map((line) => `${line}\n`).join(""));
    const report = await runCli(["report", dir, "--recompute"]);
    expect(report.code, report.stderr).toBe(0);

    const screenshot = join(screenshots(), "report.png");
    const check = await openReport(join(dir, "report.html"), screenshot);
    expect(check.charts.map((chart) => chart.id)).toEqual(CHART_IDS);
    for (const chart of check.charts) {
      expect(chart.width, chart.id).toBeGreaterThan(100);
      expect(chart.height, chart.id).toBeGreaterThan(50);
      expect(chart.marks, chart.id).toBeGreaterThan(0);
      expect(chart.text, chart.id).not.toContain("no ECS judge ran");
    }
    // Every dialogue + 5 condition means in the dissociation plot; 6 types x 5 conditions x 2 phases (at most) in the other.
    expect(check.charts.find((chart) => chart.id === "chart-ecs-vs-fs")!.points).toBe(DIALOGUES + 5);
    expect(check.charts.find((chart) => chart.id === "chart-ecs-vs-fs")!.text).toContain("cross-family-judge");
    expect(check.charts.find((chart) => chart.id === "chart-ecs-phase")!.points).toBeGreaterThan(30);
    expect(check.pwned).toBe(false);
    expect(check.bodyText).toContain("<script>window.__pwned = true</script>");
    expect(check.consoleErrors).toEqual([]);
    expect(check.outsideRequests).toEqual([]);
    expect(existsSync(screenshot)).toBe(true);
    console.info(`report screenshot: ${screenshot}`);
  });
});
