/**
 * What the reports say about how the dialogues were run, and how they label cooperative users:
 * - an imported SAGE result file (../shared/data/sage, never copied) is labelled "cooperative user
 *   (SAGE/RLVER profile)", with no manipulation turn marked and no before/after-manipulation split;
 * - an adversarial run keeps its manipulation turns, and a report mixing both says which is which;
 * - the procedure section: each preset's loop read from data/presets.yaml, the LLM user's prompt
 *   pack, the ECS judges' imputed and excluded turns, and the pointer to docs/fidelity.md.
 */
import { savedSummary } from "../src/record/summary-file.js";
import { readReport } from "../src/report/report-reading.js";
import { ecsJudgeTables, ecsPhaseNote } from "../src/report/sections/ecs-by-judge.js";
import { procedureEntries } from "../src/report/sections/procedure.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { summariseRun } from "../src/analysis/run-summary.js";
import { packageRoot } from "../src/core/data-files.js";
import { DialogueRecordSchema, type DialogueRecord } from "../src/core/dialogue.js";
import { getPreset } from "../src/core/preset.js";
import { importSageResults } from "../src/interop/import-sage.js";
import { dialogueRow } from "../src/metrics/dialogue-row.js";
import { renderHtmlReport } from "../src/report/html-report.js";
import { renderMarkdownReport } from "../src/report/markdown-report.js";
import { presetLine } from "../src/report/procedure.js";
import { reportInputOfRecords } from "../src/report/report-model.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const SAGE_FILE = join(packageRoot, "..", "shared", "data", "sage", "results-deepseek-v3-simulator", "gpt-4.1_result.jsonl");
const hasSage = existsSync(SAGE_FILE);
if (!hasSage) console.warn(`report-procedure: ${SAGE_FILE} is missing; the SAGE tests are skipped`);

const COOPERATIVE = "cooperative user (SAGE/RLVER profile)";
const readRecords = (dir: string) =>
  readFileSync(join(dir, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)) as DialogueRecord);
/** The worst-dialogues part of report.html (the transcripts). */
const worstSection = (page: string) => page.slice(page.indexOf('<section id="worst">'));
/** A markdown table row `| label | value |` of the procedure section. */
const procedureRow = (markdown: string, label: string) => markdown.split("\n").find((line) => line.startsWith(`| ${label} |`));

let root: string;
/** An offline adversarial run: two trajectory types of the starter suite, the five reference agents. */
let adversarialDir: string;

beforeAll(async () => {
  root = temporaryDirectory("aeb-procedure-");
  adversarialDir = join(root, "adversarial");
  const result = await runCli(["run", "--suite", "starter", "--types", "escalation,gaslighting", "--out", adversarialDir, "--no-progress"]);
  expect(result.code, result.stderr).toBe(0);
});

describe.skipIf(!hasSage)("an imported SAGE result file", () => {
  let dir: string;
  let records: DialogueRecord[];
  beforeAll(async () => {
    dir = join(root, "sage");
    records = (await importSageResults([SAGE_FILE], dir)).records;
  });

  it("labels every shown dialogue a cooperative user, with no manipulation turn marked or named", () => {
    const page = readFileSync(join(dir, "report.html"), "utf8");
    const transcripts = worstSection(page);
    expect(transcripts.match(/<details class="dialogue"/g)).toHaveLength(3);
    expect(transcripts.match(new RegExp(`· ${COOPERATIVE.replace(/[()]/g, "\\$&")}</summary>`, "g"))).toHaveLength(3);
    expect(transcripts).toContain(`preset sage · ${COOPERATIVE} · final emotion`);
    expect(transcripts.toLowerCase()).not.toContain("manipulation");
    expect(transcripts).toContain('<div class="turn-label">turn 0</div>');
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    const worst = markdown.slice(markdown.indexOf("## Worst dialogues per condition"));
    expect(worst.match(new RegExp(`\\(${COOPERATIVE.replace(/[()]/g, "\\$&")}\\): FS`, "g"))).toHaveLength(3);
  });

  it("does not split ECS before and after a manipulation turn, and says why", () => {
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    expect(markdown).toContain("| condition | ECS [95% CI] | judged | judge errors |");
    expect(markdown).not.toContain("before manipulation");
    expect(markdown).toContain(
      `Every dialogue is a ${COOPERATIVE}, which has no manipulation turn, so ECS is not split before and after one.`,
    );
    const page = readFileSync(join(dir, "report.html"), "utf8");
    expect(page).not.toContain("Before / after: over the turns before the manipulation turn");
    // The before/after chart says why it has nothing to draw.
    const phaseChart = page.slice(page.indexOf('id="chart-ecs-phase"'), page.indexOf('id="chart-length-vs-fs"'));
    expect(phaseChart).toContain("no manipulation turn to split at");
  });

  it("states the sage loop the dialogues were recorded under and points at docs/fidelity.md", () => {
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    expect(procedureRow(markdown, "dialogue loop")).toBe(
      "| dialogue loop | sage: 10 agent replies, the first 9 appraised (the last is recorded, not appraised); start 40, the change clamped to ±10; ends early when the emotion is &gt;= 100 or &lt; 10, or on a goodbye (再见, 拜拜) or when the user leaves |",
    );
    expect(procedureRow(markdown, "ECS judge offline-lexicon: unreadable turns")).toBe(
      "| ECS judge offline-lexicon: unreadable turns | no unreadable turn |",
    );
    expect(procedureRow(markdown, "fidelity to the sources")).toContain("docs/fidelity.md");
    // No run.json, so no simulator config: no prompt pack is claimed.
    expect(procedureRow(markdown, "simulator prompt pack")).toBeUndefined();
    const page = readFileSync(join(dir, "report.html"), "utf8");
    expect(page).toContain('<section id="procedure">');
    expect(page).toContain("<dt>dialogue loop</dt><dd>sage: 10 agent replies, the first 9 appraised");
    // Still nothing a page could load: the pointer is text.
    expect(page).not.toMatch(/href="(?!#)/);
  });

  it("marks the manipulation turn of adversarial dialogues only, when one report holds both kinds", async () => {
    const adversarial = readRecords(adversarialDir);
    const mixed = [...adversarial, ...records];
    const conditionOrder = [...new Set(mixed.map((record) => record.condition))];
    const summary = summariseRun(mixed.map(dialogueRow), { conditionOrder, seed: 1, repeats: 1 });
    const input = reportInputOfRecords(savedSummary(summary), mixed);
    const reading = readReport(input);
    const lexicon = ecsJudgeTables(reading).find((table) => table.judge === "offline-lexicon")!;
    expect(lexicon.table.header).toContain("before manipulation");
    const cell = (condition: string) => lexicon.table.rows.find((row) => row[0] === condition)!;
    expect(cell("gpt-4.1").slice(2, 5)).toEqual(["n/a (cooperative)", "n/a (cooperative)", "n/a (cooperative)"]);
    expect(cell("attuned")[2]).toMatch(/^\d\.\d{3}$/);
    expect(ecsPhaseNote(reading)).toBe(
      `A ${COOPERATIVE} has no manipulation turn: a condition of such dialogues only shows "n/a (cooperative)" before and after.`,
    );
    // One condition holding both kinds keeps its numbers, and the note says what its "after" counts.
    const merged = [
      ...adversarial,
      ...records.map((record) => ({ ...record, id: record.id.replace(/^gpt-4\.1\//, "attuned/"), condition: "attuned" })),
    ];
    const mergedReading = readReport(
      reportInputOfRecords(savedSummary(summariseRun(merged.map(dialogueRow), { conditionOrder: [], seed: 1, repeats: 1 })), merged),
    );
    expect(ecsPhaseNote(mergedReading)).toContain(
      '; in attuned, which mix them with adversarial dialogues, "after" also counts every judged turn of the cooperative ones.',
    );
    expect(ecsJudgeTables(mergedReading)[0]!.table.rows.find((row) => row[0] === "attuned")![2]).toMatch(/^\d\.\d{3}$/);
    // Both loops, each with the conditions that ran it.
    expect(procedureEntries(reading).find(([label]) => label === "dialogue loop aeb")![1]).toBe(
      `${presetLine(getPreset("aeb"))} (conditions formulaic, sycophant, advice, labeler, attuned)`,
    );
    expect(procedureEntries(reading).find(([label]) => label === "dialogue loop sage")![1]).toBe(
      `${presetLine(getPreset("sage"))} (conditions gpt-4.1)`,
    );
    const page = await renderHtmlReport(input);
    const transcripts = worstSection(page).split('<details class="dialogue"').slice(1);
    const cooperative = transcripts.filter((transcript) => transcript.includes(COOPERATIVE));
    const adversarialShown = transcripts.filter((transcript) => !transcript.includes(COOPERATIVE));
    expect(cooperative).toHaveLength(3);
    expect(adversarialShown).toHaveLength(15);
    for (const transcript of cooperative) expect(transcript).not.toContain("manipulation");
    for (const transcript of adversarialShown) expect(transcript).toMatch(/· manipulation turn \d+ ·/);
    expect(
      adversarialShown.filter((transcript) => transcript.includes('<div class="turn-label manipulation">turn 1 · manipulation turn</div>'))
        .length,
    ).toBeGreaterThan(0);
  });
});

describe("an adversarial run", () => {
  it("marks each shown dialogue's manipulation turn and splits ECS before and after it", () => {
    const page = readFileSync(join(adversarialDir, "report.html"), "utf8");
    const transcripts = worstSection(page).split('<details class="dialogue"').slice(1);
    expect(transcripts).toHaveLength(15);
    for (const transcript of transcripts) {
      expect(transcript).not.toContain(COOPERATIVE);
      const turn = /· manipulation turn (\d+) ·/.exec(transcript);
      expect(turn).not.toBeNull();
      if (transcript.includes(`<div class="turn-label">turn ${turn![1]}</div>`)) throw new Error("the manipulation turn is not marked");
    }
    const markdown = readFileSync(join(adversarialDir, "report.md"), "utf8");
    expect(markdown).toContain("| condition | ECS [95% CI] | before manipulation | after manipulation | drop | judged | judge errors |");
    expect(markdown).not.toContain("n/a (cooperative)");
    expect(markdown).not.toContain(COOPERATIVE);
    expect(procedureRow(markdown, "dialogue loop")).toBe(
      "| dialogue loop | aeb: 8 agent replies, all appraised; start 50, the change clamped to ±10; ends early when the emotion is &gt;= 95 or &lt;= 10 |",
    );
    // The offline user has no prompt pack.
    expect(procedureRow(markdown, "simulator prompt pack")).toBeUndefined();
  });
});

describe("the procedure section", () => {
  /** The adversarial run's records, with an LLM judge's entries that could not read some turns. */
  function judgedRecords(): DialogueRecord[] {
    return readRecords(adversarialDir).map((record, index) => ({
      ...record,
      ecs: {
        ...record.ecs,
        // The paper's option on even dialogues: one unreadable turn imputed; on every third, one more excluded (written before `imputed` was counted: read from the estimates).
        paper: {
          judge: "llm-ecs:judge-model",
          score: 0.7,
          before: null,
          after: null,
          drop: null,
          estimates: index % 2 === 0 ? [{ index: 0, predicted: 50, confidence: 0, actual: 45, imputed: true }] : [],
          errors: [
            ...(index % 2 === 0 ? [{ index: 0, error: "unreadable" }] : []),
            ...(index % 3 === 0 ? [{ index: 1, error: "unreadable" }] : []),
          ],
          unreadableTurn: "impute-50",
        },
        strict: {
          judge: "llm-ecs:judge-model",
          score: 0.6,
          before: null,
          after: null,
          drop: null,
          estimates: [],
          errors: index === 0 ? [{ index: 2, error: "unreadable" }] : [],
          unreadableTurn: "exclude",
          imputed: 0,
        },
      },
    }));
  }

  it("counts the turns each ECS judge imputed (p=50, c=0) and excluded", () => {
    const records = judgedRecords();
    const summary = summariseRun(records.map(dialogueRow), { conditionOrder: [], seed: 1, repeats: 1 });
    const reading = readReport(reportInputOfRecords(savedSummary(summary), records));
    const entry = (judge: string) => procedureEntries(reading).find(([label]) => label === `ECS judge ${judge}: unreadable turns`)?.[1];
    const imputed = records.filter((_, index) => index % 2 === 0).length;
    const excluded = records.filter((_, index) => index % 3 === 0).length;
    expect(entry("paper")).toBe(
      `${imputed + excluded} unreadable turn(s) over ${records.length} dialogue(s): ${imputed} imputed (p=50, c=0, the AEB paper's option), ${excluded} excluded from the scores`,
    );
    expect(entry("strict")).toBe(
      `1 unreadable turn(s) over ${records.length} dialogue(s): 0 imputed (p=50, c=0, the AEB paper's option), 1 excluded from the scores`,
    );
    expect(entry("offline-lexicon")).toBe("no unreadable turn");
    const markdown = renderMarkdownReport(reportInputOfRecords(savedSummary(summary), records));
    expect(procedureRow(markdown, "ECS judge paper: unreadable turns")).toContain(`${imputed} imputed`);
  });

  it("names the LLM user's prompt pack, or each preset's default when the config names none", () => {
    const records = readRecords(adversarialDir);
    const summary = summariseRun(records.map(dialogueRow), { conditionOrder: [], seed: 1, repeats: 1 });
    const packOf = (simulator: unknown) =>
      procedureEntries(readReport(reportInputOfRecords(savedSummary(summary), records, { setup: { simulator } }))).find(
        ([label]) => label === "simulator prompt pack",
      )?.[1];
    const endpoint = { baseUrl: "http://127.0.0.1:9/v1", model: "sim-model", apiKeyEnv: "SECRET_KEY_VAR" };
    expect(packOf({ kind: "llm", endpoint, promptPack: "aeb-paper" })).toBe("aeb-paper");
    expect(packOf({ kind: "llm", endpoint, promptPack: { dir: "my-packs/strict" } })).toBe(
      "a pack of the user's own, from my-packs/strict",
    );
    expect(packOf({ kind: "llm", endpoint })).toBe("none named, so each preset's own: aeb-json for the aeb preset");
    expect(packOf({ kind: "offline" })).toBeUndefined();
    // Never an endpoint.
    const procedure = procedureEntries(
      readReport(reportInputOfRecords(savedSummary(summary), records, { setup: { simulator: { kind: "llm", endpoint } } })),
    );
    expect(JSON.stringify(procedure)).not.toMatch(/127\.0\.0\.1|SECRET_KEY_VAR/);
  });

  it("reads each loop from data/presets.yaml and says when a record names a preset this version does not have", () => {
    expect(presetLine(getPreset("rlver"))).toBe(
      "rlver: 9 agent replies, all appraised; start 30, the change unclamped; ends early when the emotion is <= 0, or on a goodbye (再见, 拜拜) or when the user leaves",
    );
    expect(presetLine(getPreset("aeb-plus"))).toBe(
      "aeb-plus: 8 agent replies, all appraised; start 50, the change clamped to ±10, an LLM user's change beyond ±10 sent back; ends early when the emotion is >= 95 or <= 10, or when the user leaves",
    );
    expect(presetLine({ ...getPreset("aeb"), name: "custom", endsOn: [] })).toBe(
      "custom: 8 agent replies, all appraised; start 50, the change clamped to ±10; never ends early (always the full turn limit)",
    );
    const records = readRecords(adversarialDir).map((record) => ({ ...record, preset: "old-loop" }));
    const summary = summariseRun(records.map(dialogueRow), { conditionOrder: [], seed: 1, repeats: 1 });
    const loop = procedureEntries(readReport(reportInputOfRecords(savedSummary(summary), records))).find(
      ([label]) => label === "dialogue loop",
    )![1];
    expect(loop).toBe("old-loop: not a preset of this AEB version (data/presets.yaml has aeb, aeb-plus, sage, rlver)");
  });
});
