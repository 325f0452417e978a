/**
 * report.html and report.md as pure functions of the saved record: the tables, the notes, the
 * worst dialogues with whole transcripts, escaping of hostile transcript text, no external
 * resource, and the same bytes for the same input.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSummaryFile, savedSummary, writeSummaryFile } from "../src/record/summary-file.js";
import type { DialogueRecord } from "../src/core/dialogue.js";
import type { TrajectoryType } from "../src/core/trajectory-type.js";
import { NO_ECS_MESSAGE } from "../src/report/charts/index.js";
import { fixed, formatP } from "../src/report/format.js";
import { renderHtmlReport } from "../src/report/html-report.js";
import { renderMarkdownReport } from "../src/report/markdown-report.js";
import { buildReportModel, partsOf, reportInputOfRecords, type ReportInput } from "../src/report/report-model.js";
import { summariseRun } from "../src/analysis/run-summary.js";
import type { RunSummary } from "../src/analysis/summary-schema.js";
import { dialogueRow } from "../src/metrics/dialogue-row.js";
import { temporaryDirectory } from "./helpers/temporary-directory.js";

interface DialogueSpec {
  condition: string;
  scenarioId?: string;
  type?: TrajectoryType;
  repeat?: number;
  emotions: number[];
  status?: "done" | "error";
  agentText?: string;
  userText?: string;
  ecs?: DialogueRecord["ecs"];
}

function dialogue(spec: DialogueSpec): DialogueRecord {
  const scenarioId = spec.scenarioId ?? "escalation-landlord";
  const repeat = spec.repeat ?? 0;
  const emotions = spec.emotions;
  const last = emotions.at(-1) as number;
  const status = spec.status ?? "done";
  return {
    id: `${spec.condition}/${scenarioId}/${repeat}`,
    condition: spec.condition,
    scenarioId,
    type: spec.type ?? "escalation",
    repeat,
    seed: 11,
    status,
    endReason: status === "error" ? "error" : last <= 10 ? "collapse" : last >= 95 ? "success" : "max_turns",
    ...(status === "error" ? { error: { kind: "timeout", stage: "agent" as const, message: "model timed out", retryable: true } } : {}),
    preset: "aeb",
    manipulationTurn: 1,
    opening: { text: "My landlord kept the whole deposit & said it was my fault.", emotion: emotions[0] as number },
    turns: emotions.slice(1).map((emotion, index) => ({
      index,
      agent: { text: spec.agentText ?? `Agent reply number ${index} of ${spec.condition}.`, chars: 30 + index },
      user: {
        text: spec.userText ?? `User answer number ${index}.`,
        emotion,
        delta: emotion - (emotions[index] as number),
        simulatorDelta: emotion - (emotions[index] as number) + 3,
        adjustments: [{ kind: "formulaic", value: -3, evidence: 'I "understand"' }],
        flags: ["formulaic"],
        hid: "partial" as const,
      },
    })),
    final: { emotion: last, fs: last / 100 },
    ...(spec.ecs === undefined ? {} : { ecs: spec.ecs }),
  };
}

/** One ECS judge's entry on a dialogue, as src/judges/apply-judge.ts records it (estimates left out). */
function ecsEntry(judge: string, score: number, before: number | null, after: number | null): NonNullable<DialogueRecord["ecs"]>[string] {
  return {
    judge,
    score,
    before,
    after,
    drop: before !== null && after !== null ? before - after : null,
    spearman: null,
    turns: 2,
    estimates: [],
    errors: [],
  };
}

/**
 * The report input of these dialogues, with the summary summariseRun makes of them; `extra`
 * overrides summary fields, e.g. to stand for a summary.json of another shape or an older one.
 */
function input(records: DialogueRecord[], extra: Record<string, unknown> = {}): ReportInput {
  const summary = { ...summariseRun(records.map(dialogueRow), { conditionOrder: [], seed: 5, repeats: 4 }), ...extra } as RunSummary;
  return reportInputOfRecords(savedSummary(summary), records, {
    setup: { conditions: [{ name: "base", agent: { kind: "reference", id: "formulaic" } }], simulator: { kind: "offline" } },
  });
}

/** Four dialogues of `base`, two of `tuned`, one of `solo`, and one errored `base` dialogue. */
function mixedRun(): DialogueRecord[] {
  return [
    dialogue({ condition: "base", emotions: [50, 40, 30], repeat: 0 }),
    dialogue({ condition: "base", emotions: [50, 45, 9], repeat: 1 }),
    dialogue({ condition: "base", emotions: [50, 55, 60], repeat: 2 }),
    dialogue({ condition: "base", emotions: [50, 52, 54], repeat: 3, type: "gaslighting", scenarioId: "gaslighting-friends" }),
    dialogue({ condition: "base", emotions: [50], repeat: 4, status: "error" }),
    dialogue({ condition: "tuned", emotions: [50, 70, 96], repeat: 0 }),
    dialogue({ condition: "tuned", emotions: [50, 60, 80], repeat: 1 }),
    dialogue({ condition: "solo", emotions: [50, 65], repeat: 0 }),
  ];
}

const HOSTILE_AGENT = '<script>alert("agent")</script> & <b>bold</b>';
const HOSTILE_USER = '</p><img src=x onerror=alert(1)><script src="https://evil.example/x.js"></script>';

describe("report.html", () => {
  it("escapes every piece of transcript text (a transcript holding <script> stays text)", async () => {
    const records = [
      dialogue({ condition: "base", emotions: [50, 30, 20], agentText: HOSTILE_AGENT, userText: HOSTILE_USER }),
      dialogue({ condition: "base", emotions: [50, 60], repeat: 1 }),
    ];
    records[0]!.turns[0]!.agent.think = "<think>plan</think><script>x()</script>";
    const page = await renderHtmlReport(input(records));
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toMatch(/<[^>]*onerror/); // the text may say onerror, no tag may carry it
    expect(page).not.toContain("<b>bold</b>");
    expect(page).toContain("&lt;script&gt;alert(&quot;agent&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;");
    expect(page).toContain("&lt;/p&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(page).toContain("&lt;think&gt;plan&lt;/think&gt;");
    expect(page).toContain("I &quot;understand&quot;");
    expect(page).toContain("kept the whole deposit &amp; said");
  });

  it("is self-contained: no URL, no external script, stylesheet, font or image", async () => {
    const page = await renderHtmlReport(input(mixedRun()));
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|@import|@font-face/i);
    expect(page).not.toMatch(/\ssrc=/);
    expect([...page.matchAll(/url\(([^)]*)\)/g)].every((match) => match[1]!.startsWith("#"))).toBe(true);
    expect([...page.matchAll(/href="([^"]*)"/g)].every((match) => match[1]!.startsWith("#"))).toBe(true);
    expect(page).toContain("Content-Security-Policy");
  });

  it("holds the headline and per-type tables, the run facts and the notes", async () => {
    const page = await renderHtmlReport(input(mixedRun()));
    expect(page).toContain("<h1>AEB run report</h1>");
    expect(page).toContain("8 (7 scored, 1 ended in error)");
    expect(page).toContain("<dt>agent of base</dt><dd>reference formulaic</dd>");
    expect(page).toContain("<dt>simulated user</dt><dd>offline</dd>");
    for (const header of ["FS [95% CI]", "collapse [95% CI]", "HID (offline: move test)", "ECS", "reply chars", "errors"])
      expect(page).toContain(`>${header}</th>`);
    // solo has one dialogue: no interval, and the report says so
    expect(page).toContain("0.650 (n=1: no CI)");
    expect(page).toContain("solo: only 1 scored dialogue(s); no interval is given");
    expect(page).toContain("base: 1 dialogue(s) ended in error and are excluded from every statistic");
    expect(page).toContain("0.330 (n=3)"); // base on escalation: (30 + 9 + 60) / 3 / 100
    expect(page).toContain("0.540 (n=1)"); // base on gaslighting
    expect(page).toContain("ECS is n/a: no ECS judge ran.");
  });

  it('says "no comparisons" when summary.comparisons is empty, and lays them out as one row per pair when present', async () => {
    const empty = await renderHtmlReport(input(mixedRun(), { comparisons: [] }));
    expect(empty).toMatch(/No comparisons/);
    // summariseRun's own comparisons (base and tuned have two dialogues or more each): each pair is one row of its metric's table.
    const real = input(mixedRun());
    expect(real.summary.comparisons.length).toBeGreaterThan(0);
    expect(real.summary.reference).toBeNull();
    const realPage = await renderHtmlReport(real);
    expect(realPage).not.toMatch(/No comparisons/);
    const realSection = realPage.slice(realPage.indexOf('<section id="comparisons">'), realPage.indexOf('<section id="length-confound">'));
    const pairs = new Set(real.summary.comparisons.map((row) => `${row.metric}/${row.a}/${row.b}`));
    const pairsOf = (metric: string) =>
      new Set(real.summary.comparisons.filter((row) => row.metric === metric).map((row) => `${row.a}/${row.b}`)).size;
    for (const row of real.summary.comparisons) {
      expect(row.family).toBe("other");
      expect(realSection).toContain(`${row.metric}: every pair (${pairsOf(row.metric)} pair${pairsOf(row.metric) === 1 ? "" : "s"})`);
      const cells =
        row.test === "mcnemar"
          ? `<td class="num">${formatP(row.p)} / ${formatP(row.pHolm)}</td>`
          : `<td class="num">${row.n}</td><td class="num">${formatP(row.p)} / ${formatP(row.pHolm)}</td><td class="num">${fixed(row.r)}</td>`;
      expect(realSection).toContain(cells);
    }
    expect(realSection.match(/<tr><td>/g)).toHaveLength(pairs.size);
    // The first table (fs) is open, the others fold away.
    expect(realSection.indexOf("<h3>fs: every pair (1 pair)</h3>")).toBeGreaterThan(0);
    expect(realSection.match(/<details class="comparison">/g)).toHaveLength(
      new Set(real.summary.comparisons.map((row) => row.metric)).size - 1,
    );
    expect(real.summary.comparisons.find((row) => row.metric === "fs" && row.test === "mannwhitney")).toMatchObject({
      a: "base",
      b: "tuned",
      n: 6,
    });
    // A summary.json of an older shape (no family, no difference): both tests of a pair on one row, Holm said to be over every pair.
    const older = { effectR: null, meanA: null, meanB: null };
    const comparisons = [
      { metric: "fs", test: "mannwhitney", a: "base", b: "tuned", n: 6, p: 0.0123, pHolm: 0.0246, r: -0.75, ...older },
      { metric: "fs", test: "wilcoxon", a: "base", b: "tuned", n: 2, p: 3e-13, pHolm: 6e-13, r: 1, ...older },
      { metric: "hid", test: "mannwhitney", a: "base", b: "<tuned>", n: 6, p: 0.5, pHolm: 0.5, r: null, ...older },
    ];
    const page = await renderHtmlReport(input(mixedRun(), { comparisons }));
    expect(page).not.toMatch(/No comparisons/);
    expect(page).toContain("<h3>fs: every pair (1 pair; Holm over all of them: a summary written before families)</h3>");
    expect(page).toContain("<summary>hid: every pair (1 pair; Holm over all of them: a summary written before families)</summary>");
    for (const header of [
      "a",
      "b",
      "scenarios",
      "a − b [95% CI] (matched)",
      "Wilcoxon p / Holm p",
      "r",
      "dialogues",
      "Mann-Whitney p / Holm p",
      "reading (Holm p &lt; 0.05)",
    ])
      expect(page).toContain(`>${header}</th>`);
    expect(page).toContain(
      '<tr><td>base</td><td>tuned</td><td class="num">2</td><td class="num">n/a</td><td class="num">3.0e-13 / 6.0e-13</td><td class="num">1.000</td><td class="num">6</td><td class="num">0.012 / 0.025</td><td class="num">-0.750</td><td>base higher</td></tr>',
    );
    expect(page).toContain("&lt;tuned&gt;");
    expect(page).toContain("this summary.json predates the reference family");
    // An entry without test, a, b or p, or with a field the schema does not know, is no run summary: refused, naming the field.
    expect(() => input(mixedRun(), { comparisons: [...comparisons, { metric: "fs" }] })).toThrow(/comparisons\.\[3\]\.test/);
    expect(() => input(mixedRun(), { comparisons: [{ ...comparisons[0], extra: "unknown" }] })).toThrow(/comparisons\.\[0\].*extra/);
  });

  it("compares every condition against the reference first, with the CI of each difference, and never calls not significant no difference", async () => {
    // Eight scenarios: attuned above base on every one, tuned within noise of attuned.
    const scenarios = Array.from({ length: 8 }, (_, index) => `escalation-${index}`);
    const records = scenarios.flatMap((scenarioId, index) => [
      dialogue({ condition: "attuned", scenarioId, emotions: [50, 70, 80 + index] }),
      dialogue({ condition: "base", scenarioId, emotions: [50, 40, 30 + index] }),
      dialogue({ condition: "tuned", scenarioId, emotions: [50, 70, 80 + index + (index % 2 === 0 ? 3 : -3)] }),
    ]);
    const report = input(records);
    const { summary } = report;
    expect(summary.reference).toBe("attuned");
    const of = (test: string, a: string, b: string) =>
      summary.comparisons.find((row) => row.metric === "fs" && row.test === test && row.a === a && row.b === b)!;
    const againstBase = of("wilcoxon", "attuned", "base");
    expect(againstBase.family).toBe("reference");
    expect(of("wilcoxon", "base", "tuned").family).toBe("other");
    const page = await renderHtmlReport(report);
    const section = page.slice(page.indexOf('<section id="comparisons">'), page.indexOf('<section id="length-confound">'));
    // The first table: fs against the reference, open; each row is "condition vs reference" (the pair turned round).
    expect(section.indexOf("<h3>fs: each condition against the reference, attuned (2 pairs)</h3>")).toBeGreaterThan(0);
    expect(section.indexOf("<h3>fs: each condition against the reference")).toBeLessThan(section.indexOf("<details"));
    expect(section).toContain("<summary>fs: the other pairs (1 pair)</summary>");
    const plus = (value: number) => `${value > 0 ? "+" : ""}${fixed(value)}`;
    const [low, high] = againstBase.difference!.ci95!;
    const unmatched = of("mannwhitney", "attuned", "base");
    expect(againstBase.difference!.mean).toBeCloseTo(0.5, 12);
    expect(section).toContain(
      `<tr><td>base</td><td>attuned</td><td class="num">8</td><td class="num">${plus(-againstBase.difference!.mean!)} [${plus(-high)}, ${plus(-low)}]</td><td class="num">${formatP(againstBase.p)} / ${formatP(againstBase.pHolm)}</td><td class="num">${fixed(-againstBase.r!)}</td><td class="num">16</td><td class="num">${formatP(unmatched.p)} / ${formatP(unmatched.pHolm)}</td><td class="num">${fixed(-unmatched.r!)}</td><td>attuned higher</td></tr>`,
    );
    // tuned is within noise of the reference: not significant, with the interval around 0, and never "no difference".
    expect(of("wilcoxon", "attuned", "tuned").pHolm).toBeGreaterThanOrEqual(0.05);
    expect(section).toMatch(/<tr><td>tuned<\/td><td>attuned<\/td>.*<td>not significant; see the CI<\/td><\/tr>/);
    const markdown = renderMarkdownReport(report);
    for (const text of [page, markdown]) {
      expect(text.toLowerCase()).not.toContain("no difference");
      expect(text).toContain("which is not evidence that the conditions are equal");
    }
    expect(markdown).toContain("### fs: each condition against the reference, attuned (2 pairs)");
    expect(markdown).toMatch(/^\| tuned \| attuned \| 8 \| .* \| not significant; see the CI \|$/m);
    // Collapses: one row per pair with the difference of collapse rates.
    expect(markdown).toContain(
      "| a | b | matched pairs | collapse rate a − b [95% CI] | collapsed: a only / b only | McNemar p / Holm p | reading (Holm p &lt; 0.05) |",
    );
  });

  it("shows the length-confound table when summary.json has one, and a sentence when not", async () => {
    // No pair of conditions to test.
    const without = await renderHtmlReport(input(mixedRun(), { lengthConfound: [] }));
    expect(without).toContain("The length-confound analysis in summary.json is empty (no pair of conditions to test).");
    // summariseRun's own rows (one pair, base and tuned, has two dialogues or more on each side).
    const real = input(mixedRun());
    expect(real.summary.lengthConfound.map((row) => [row.a, row.b])).toEqual([["base", "tuned"]]);
    const realPage = await renderHtmlReport(real);
    expect(realPage).not.toContain("The length-confound analysis in summary.json is empty");
    const realRow = real.summary.lengthConfound[0]!;
    expect(realPage).toContain(
      `<td>base</td><td>tuned</td><td class="num">${fixed(realRow.coefficient)}</td><td class="num">${formatP(realRow.p)}</td>`,
    );
    const lengthConfound = [
      { a: "base", b: "tuned", coefficient: 0.41, p: 0.0004, coefficientAdjusted: 0.38, pAdjusted: 0.002, rhoA: 0.12, rhoB: -0.3 },
    ];
    const page = await renderHtmlReport(input(mixedRun(), { lengthConfound }));
    expect(page).not.toContain("The length-confound analysis in summary.json is empty");
    expect(page).toContain("coef. adjusted for length");
    expect(page).toContain(
      '<td class="num">0.410</td><td class="num">4.0e-4</td><td class="num">0.380</td><td class="num">0.002</td><td class="num">0.120</td><td class="num">-0.300</td>',
    );
    // An entry of another shape (e.g. nested results) is no run summary: refused, naming the field.
    expect(() =>
      input(mixedRun(), { lengthConfound: [...lengthConfound, { a: "base", b: "solo", unadjusted: { coefficient: 0.2 } }] }),
    ).toThrow(/lengthConfound\.\[1\]\.coefficient/);
  });

  it("prints the three lowest-FS dialogues per condition with whole transcripts, never errored ones", async () => {
    const records = mixedRun();
    const model = buildReportModel(input(records));
    expect(
      partsOf(model, "worst", "dialogues")[0]!.groups.map((group) => [group.condition, group.dialogues.map((record) => record.final.fs)]),
    ).toEqual([
      ["base", [0.09, 0.3, 0.54]],
      ["solo", [0.65]],
      ["tuned", [0.8, 0.96]],
    ]);
    const page = await renderHtmlReport(input(records));
    const worstSection = page.slice(page.indexOf('<section id="worst">'));
    expect(worstSection).toContain("base/escalation-landlord/1");
    expect(worstSection).not.toContain("base/escalation-landlord/2"); // FS 0.60, the fourth lowest of base
    expect(worstSection).not.toContain("base/escalation-landlord/4"); // errored
    expect(worstSection).toContain("My landlord kept the whole deposit");
    expect(worstSection).toContain("Agent reply number 1 of base.");
    expect(worstSection).toContain("User answer number 1.");
    expect(worstSection).toContain("emotion <strong>9</strong>");
    expect(worstSection).toContain('<span class="down">-36</span>; simulator -33');
    expect(worstSection).toContain("formulaic -3");
    expect(worstSection).toContain("turn 1 · manipulation turn");
  });

  it("charts the ECS dissociation when dialogues carry ECS, and says no ECS judge ran otherwise", async () => {
    // Dialogues without any ECS entry.
    const unjudged = mixedRun();
    expect(unjudged.every((record) => record.ecs === undefined)).toBe(true);
    const plain = await renderHtmlReport(input(unjudged));
    expect(plain).toContain(NO_ECS_MESSAGE);
    expect(plain).toContain("No ECS judge ran.");
    const judged = mixedRun().map((record, index) => ({
      ...record,
      ecs: { "cross-family": ecsEntry("cross-family", 0.4 + index / 50, 0.6, 0.5) },
    }));
    // Judged dialogues beside a summary.json that names no judge (no ECS means).
    const page = await renderHtmlReport(reportInputOfRecords(input(unjudged, { judges: { ecs: [], hid: [] } }).summary, judged));
    expect(page).not.toContain(NO_ECS_MESSAGE);
    expect(page).toContain("summary.json has no ECS means, although the dialogues carry scores from cross-family");
    expect(page.match(/<figure class="chart"/g)).toHaveLength(6);
    // The summary of the judged dialogues: the headline ECS is the judge's, with its own table.
    const current = input(judged);
    expect(current.summary.judges.ecs).toEqual(["cross-family"]);
    const judgedPage = await renderHtmlReport(current);
    expect(judgedPage).not.toContain(NO_ECS_MESSAGE);
    expect(judgedPage).not.toContain("ECS is n/a");
    const base = current.summary.conditions.find((condition) => condition.name === "base")!;
    expect(judgedPage).toContain(`<td>base</td><td class="num">4</td><td class="num">${fixed(base.fs.mean)} [`);
    expect(judgedPage).toContain(
      `<td class="num">${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}]</td>`,
    );
    expect(judgedPage).toContain("<h3>cross-family (the headline ECS)</h3>");
    expect(judgedPage).toContain(
      '<td>base</td><td class="num">' +
        `${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}]</td><td class="num">0.600</td><td class="num">0.500</td><td class="num">0.100</td><td class="num">4</td><td class="num">0</td>`,
    );
  });

  it("shows every ECS judge, the independent HID judges beside the simulator's HID, and the token usage", async () => {
    const records = mixedRun().map((record, index) =>
      record.status === "error"
        ? record
        : {
            ...record,
            ecs: {
              "llm-judge": ecsEntry("llm-judge", 0.5 + index / 40, 0.7, 0.45),
              "offline-lexicon": ecsEntry("offline-lexicon", 0.8, 0.9, 0.75),
            },
            hid: {
              "hid-judge":
                index === 1
                  ? { judge: "hid-judge", error: "evidence not found in the transcript" }
                  : { judge: "hid-judge", verdict: "yes" as const, value: 1, turn: 1, evidence: "reply" },
            },
          },
    );
    const summary = summariseRun(records.map(dialogueRow), {
      conditionOrder: ["base", "tuned", "solo"],
      seed: 5,
      repeats: 4,
      judges: { ecs: ["llm-judge", "offline-lexicon"], hid: ["hid-judge"] },
    });
    const usage = [
      {
        model: "qwen-7b",
        role: "agent:base",
        calls: 20,
        cachedCalls: 2,
        failedCalls: 0,
        requests: 21,
        retries: 1,
        promptTokens: 12000,
        completionTokens: 3400,
      },
      {
        model: "gpt-judge",
        role: "judge:llm-judge",
        calls: 40,
        cachedCalls: 0,
        failedCalls: 1,
        requests: 42,
        retries: 2,
        promptTokens: 30000,
        completionTokens: 800,
      },
    ];
    const report: ReportInput = reportInputOfRecords(savedSummary({ ...summary, usage }), records);
    const page = await renderHtmlReport(report);
    const markdown = renderMarkdownReport(report);
    const base = summary.conditions.find((condition) => condition.name === "base")!;
    // One table per ECS judge, the first (the headline's) first.
    expect(page.indexOf("<h3>llm-judge (the headline ECS)</h3>")).toBeGreaterThan(0);
    const baselineTitle = "ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge";
    expect(page.indexOf(`<h3>${baselineTitle.replace("'", "&#39;")}</h3>`)).toBeGreaterThan(
      page.indexOf("<h3>llm-judge (the headline ECS)</h3>"),
    );
    expect(markdown).toContain(
      "| ECS judges | llm-judge (model judge, the headline ECS), offline-lexicon (ECS lexicon baseline: reads the user's messages only, not a model judge) |",
    );
    const offline = base.ecsByJudge["offline-lexicon"]!;
    expect(markdown).toContain(
      `| base | ${fixed(offline.mean!.mean)} [${fixed(offline.mean!.ci95![0])}, ${fixed(offline.mean!.ci95![1])}] | 0.900 | 0.750 | 0.150 | 4 | 0 |`,
    );
    expect(markdown).toContain(`| base | 4 | ${fixed(base.fs.mean)} [`);
    expect(markdown).toContain(`| ${fixed(base.ecs!.mean)} [`);
    // The independent HID judge beside the simulator's HID, with what it could and could not judge.
    const hidJudge = base.hidByJudge["hid-judge"]!;
    expect(hidJudge.judged + hidJudge.judgeErrors).toBe(4);
    expect(markdown).toContain("## HID: the simulated user and the independent judges");
    expect(markdown).toContain("| condition | simulator HID [95% CI] | hid-judge [95% CI] | hid-judge: judged | hid-judge: errors |");
    expect(markdown).toContain(
      `| base | ${fixed(base.hid!.mean)} [${fixed(base.hid!.ci95![0])}, ${fixed(base.hid!.ci95![1])}] | ${fixed(hidJudge.mean!.mean)}`,
    );
    expect(markdown).toContain(`| ${hidJudge.judged} | ${hidJudge.judgeErrors} |`);
    expect(page).toContain('<section id="hid">');
    expect(page).toContain('<a href="#hid">HID judges</a>');
    // Token usage per role, with a total.
    expect(markdown).toContain("| role | model | calls | cached | failed | requests | retries | prompt tokens | completion tokens |");
    expect(markdown).toContain("| agent:base | qwen-7b | 20 | 2 | 0 | 21 | 1 | 12000 | 3400 |");
    expect(markdown).toContain("| judge:llm-judge | gpt-judge | 40 | 0 | 1 | 42 | 2 | 30000 | 800 |");
    expect(markdown).toContain("| total |  | 60 | 2 | 1 | 63 | 3 | 42000 | 4200 |");
    expect(page).toContain('<section id="usage">');
    // The comparisons include the second ECS judge and the HID judge by name.
    expect(page).toMatch(/<summary>ecs:offline-lexicon: every pair \(\d+ pairs?\)<\/summary>/);
    expect(page).toMatch(/<summary>hid:hid-judge: every pair \(\d+ pairs?\)<\/summary>/);
    // An offline run has neither section.
    const offlinePage = await renderHtmlReport(input(mixedRun()));
    expect(offlinePage).not.toContain('<section id="hid">');
    expect(offlinePage).not.toContain('<section id="usage">');
  });

  it("takes the headline ECS from the first model judge, even after the lexicon baseline, and relabels a summary written before the distinction", async () => {
    const records = mixedRun().map((record, index) =>
      record.status === "error"
        ? record
        : {
            ...record,
            ecs: {
              "offline-lexicon": ecsEntry("offline-lexicon", 0.8, 0.9, 0.75),
              "llm-judge": { ...ecsEntry("llm-ecs:gemma", 0.5 + index / 40, 0.7, 0.45), model: "gemma" },
            },
          },
    );
    const summary = summariseRun(records.map(dialogueRow), {
      conditionOrder: ["base", "tuned", "solo"],
      seed: 5,
      repeats: 4,
      judges: { ecs: ["offline-lexicon", "llm-judge"], hid: [] },
    });
    expect(summary.judges).toMatchObject({ headlineEcs: "llm-judge", heuristicEcs: { "offline-lexicon": "offline-lexicon" } });
    const base = summary.conditions.find((condition) => condition.name === "base")!;
    expect(base.ecs).toEqual(base.ecsByJudge["llm-judge"]!.mean);
    const metrics = new Set(summary.comparisons.map((row) => row.metric));
    expect(metrics).toContain("ecs");
    expect(metrics).toContain("ecs:offline-lexicon");
    expect(summary.comparisons.find((row) => row.metric === "ecs")?.meanA).toBeCloseTo(base.ecsByJudge["llm-judge"]!.mean!.mean!, 12);
    const headlineCell = `| ${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}] |`;
    expect(renderMarkdownReport(reportInputOfRecords(savedSummary(summary), records))).toContain(headlineCell);

    // The same dialogues under a summary.json of the older kind: no headlineEcs, `ecs` the first judge's (the baseline's), its comparisons named `ecs`.
    const older = structuredClone(summary) as RunSummary;
    delete older.judges.headlineEcs;
    delete older.judges.heuristicEcs;
    for (const condition of older.conditions) condition.ecs = condition.ecsByJudge["offline-lexicon"]!.mean;
    older.comparisons = older.comparisons.map((row) => ({
      ...row,
      metric: row.metric === "ecs" ? "ecs:llm-judge" : row.metric === "ecs:offline-lexicon" ? "ecs" : row.metric,
    }));
    const markdown = renderMarkdownReport(reportInputOfRecords(savedSummary(older), records));
    expect(markdown).toContain(headlineCell);
    expect(markdown).not.toContain(
      `| ${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.mean)} [${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.ci95![0])}, ${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.ci95![1])}] | 4 |`,
    );
    expect(markdown).toContain("### llm-judge (the headline ECS)");
    expect(markdown).toContain("### ECS lexicon baseline (offline-lexicon)");
    // Its `ecs` comparisons were the baseline's: shown under that judge's name.
    expect(markdown).toContain("### ecs:offline-lexicon: every pair");
    expect(markdown).not.toMatch(/^### ecs: /m);

    // An older summary whose only judge is the baseline: its `ecs` means are never the headline.
    const lexiconOnly = records.map((record) =>
      record.ecs === undefined ? record : { ...record, ecs: { "offline-lexicon": record.ecs["offline-lexicon"]! } },
    );
    const oldLexicon = summariseRun(lexiconOnly.map(dialogueRow), { conditionOrder: ["base", "tuned", "solo"], seed: 5, repeats: 4 });
    delete oldLexicon.judges.headlineEcs;
    for (const condition of oldLexicon.conditions) condition.ecs = condition.ecsByJudge["offline-lexicon"]!.mean;
    const oldMarkdown = renderMarkdownReport(reportInputOfRecords(savedSummary(oldLexicon), lexiconOnly));
    expect(oldMarkdown).toMatch(/^\| base \| 4 \| [^|]+\| [^|]+\| [^|]+\| n\/a \(no model judge\) \|/m);
    expect(oldMarkdown).toContain("ECS is n/a (no model judge): offline-lexicon is the ECS lexicon baseline");
  });

  it("labels HID as the reward's move test under the offline user, and not under an LLM user; an independent HID judge keeps its name", async () => {
    const records = mixedRun().map((record) =>
      record.status === "error"
        ? record
        : { ...record, hid: { "hid-judge": { judge: "hid-judge", verdict: "yes" as const, value: 1, turn: 1, evidence: "reply" } } },
    );
    const summary = summariseRun(records.map(dialogueRow), {
      conditionOrder: [],
      seed: 5,
      repeats: 4,
      judges: { ecs: [], hid: ["hid-judge"] },
    });
    const offline = reportInputOfRecords(savedSummary(summary), records, { setup: { simulator: { kind: "offline" } } });
    const llm = reportInputOfRecords(savedSummary(summary), records, {
      setup: { simulator: { kind: "llm", endpoint: { baseUrl: "http://127.0.0.1:1/v1", model: "qwen" } } },
    });
    const offlinePage = await renderHtmlReport(offline);
    const offlineMarkdown = renderMarkdownReport(offline);
    expect(offlinePage).toContain(">HID (offline: move test)</th>");
    expect(offlinePage).toContain("under the offline simulated user, HID is the same move test that sets the reward");
    expect(offlineMarkdown).toContain("| condition | simulator HID (offline: move test) [95% CI] | hid-judge [95% CI] |");
    expect(offlineMarkdown).toContain(
      "| HID | the simulated user's verdicts (offline: the reward's own move test, not independent); independent HID judges: hid-judge |",
    );
    const llmPage = await renderHtmlReport(llm);
    expect(llmPage).toContain(">HID</th>");
    expect(llmPage).not.toContain("offline: move test");
    expect(renderMarkdownReport(llm)).toContain("| condition | simulator HID [95% CI] | hid-judge [95% CI] |");
  });

  it("gives the same bytes for the same record, whatever the order of the dialogues", async () => {
    const records = mixedRun();
    const first = await renderHtmlReport(input(records));
    const second = await renderHtmlReport(input([...records].reverse()));
    expect(second).toBe(first);
  });

  it("shows reading notes (e.g. a torn line) among the notes", async () => {
    const page = await renderHtmlReport({ ...input(mixedRun()), readingNotes: ["dialogues.jsonl ends with a torn line"] });
    expect(page).toContain("<li>dialogues.jsonl ends with a torn line</li>");
  });
});

describe("report.md", () => {
  it("has the same tables as report.html, no charts, and the worst dialogues in short", () => {
    // A summary.json with one comparison of the older shape (no family) and no pair to test for the length confound.
    const text = renderMarkdownReport(
      input(mixedRun(), {
        comparisons: [
          {
            metric: "fs",
            test: "mannwhitney",
            a: "base",
            b: "tuned",
            n: 6,
            p: 0.0123,
            pHolm: 0.0246,
            r: -0.75,
            effectR: null,
            meanA: null,
            meanB: null,
          },
        ],
        lengthConfound: [],
      }),
    );
    expect(text).toContain("# AEB run report");
    expect(text).toContain("| condition | n | FS [95% CI] | collapse [95% CI] | HID (offline: move test) | ECS | reply chars | errors |");
    expect(text).toContain("0.650 (n=1: no CI)");
    expect(text).toContain(
      "| a | b | scenarios | a − b [95% CI] (matched) | Wilcoxon p / Holm p | r | dialogues | Mann-Whitney p / Holm p | r | reading (Holm p &lt; 0.05) |",
    );
    expect(text).toContain("| base | tuned | n/a | n/a | n/a | n/a | 6 | 0.012 / 0.025 | -0.750 | tuned higher |");
    expect(text).toContain("The length-confound analysis in summary.json is empty (no pair of conditions to test).");
    expect(text).toContain("## Worst dialogues per condition");
    expect(text).toContain("- base/escalation-landlord/1 (escalation): FS 0.090, collapse after 2 turn(s); emotion 50 → 45 → 9.");
    expect(text).not.toContain("<svg");
    expect(text).toContain("- base: 1 dialogue(s) ended in error and are excluded from every statistic");
    // With summariseRun's own summary: its comparisons and its length-confound row.
    const real = input(mixedRun());
    const realText = renderMarkdownReport(real);
    for (const row of real.summary.comparisons.filter((candidate) => candidate.test === "mannwhitney")) {
      expect(realText).toContain(
        `| ${row.a} | ${row.b} | n/a | n/a | n/a | n/a | ${row.n} | ${formatP(row.p)} / ${formatP(row.pHolm)} | ${fixed(row.r)} |`,
      );
    }
    expect(realText).toContain(
      "| a | b | condition coef. | p | coef. adjusted for length | p adjusted | rho(length, FS) in a | rho(length, FS) in b |",
    );
    expect(realText).toContain(`| base | tuned | ${fixed(real.summary.lengthConfound[0]!.coefficient)} |`);
  });

  it("says no comparisons when there are none", () => {
    expect(renderMarkdownReport(input(mixedRun(), { comparisons: [] }))).toContain("No comparisons: summary.json lists none.");
  });

  it("escapes transcript text so it cannot inject markup or break a line", () => {
    const records = [
      dialogue({ condition: "base", emotions: [50, 20], userText: "line one\n<script>alert(1)</script> | *bold* [link](x)" }),
    ];
    const text = renderMarkdownReport(input(records));
    expect(text).not.toContain("<script");
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt; \\| \\*bold\\* \\[link\\](x)");
    expect(text).toContain("line one &lt;script");
  });

  it("still renders from a summary alone (tables only)", () => {
    const { summary } = input(mixedRun());
    const text = renderMarkdownReport(summary);
    expect(text).toContain("## Headline (per condition)");
    expect(text).not.toContain("## Worst dialogues per condition");
  });
});

describe("the report's sections", () => {
  it("are one ordered list both reports lay out: the page in its order (its links too), report.md in its own, an empty section in neither", async () => {
    const report = input(mixedRun());
    const model = buildReportModel(report);
    expect(model.sections.map((section) => section.id)).toEqual([
      "headline",
      "charts",
      "by-type",
      "ecs",
      "hid",
      "comparisons",
      "length-confound",
      "errors",
      "usage",
      "procedure",
      "notes",
      "worst",
    ]);
    const shown = model.sections.filter((section) => section.lines.some((line) => line.length > 0));
    // No independent HID judge and no model call: those sections have no part and are not shown; the errored dialogue's cause is.
    expect(shown.map((section) => section.id)).toEqual([
      "headline",
      "charts",
      "by-type",
      "ecs",
      "comparisons",
      "length-confound",
      "errors",
      "procedure",
      "notes",
      "worst",
    ]);
    const page = await renderHtmlReport(report);
    expect([...page.matchAll(/<section id="([^"]+)">/g)].map((match) => match[1])).toEqual(shown.map((section) => section.id));
    expect([...page.matchAll(/<a href="#([^"]+)">/g)].map((match) => match[1])).toEqual(shown.map((section) => section.id));
    expect(page).toContain('<section id="errors">\n<h2>Errors</h2>\n<p class="note">Dialogues that ended in error, by cause');
    expect(page).toContain("<td>timeout</td><td>agent</td><td>1</td><td>yes</td>");
    const markdown = renderMarkdownReport(report);
    const headings = [...markdown.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual([
      "How the dialogues were run",
      "Headline (per condition)",
      "Final score by trajectory type",
      "ECS by judge",
      "Errors",
      "Pairwise comparisons",
      "Length confound",
      "Notes",
      "Worst dialogues per condition",
    ]);
    // The page's own explanations stay out of report.md; the sentences of the record are in both.
    expect(page).toContain("FS: mean final score (final emotion / 100)");
    expect(markdown).not.toContain("FS: mean final score (final emotion / 100)");
    for (const text of partsOf(model, "headline", "note").map((part) => part.text)) expect(markdown).toContain(text);
  });

  it("read the summary as summary.json holds it: written and read back it is the same, and one the schema refuses names the field", () => {
    const summary = summariseRun(mixedRun().map(dialogueRow), { conditionOrder: [], seed: 5, repeats: 4 });
    const dir = temporaryDirectory("aeb-summary-");
    const written = writeSummaryFile(dir, summary);
    const bytes = readFileSync(join(dir, "summary.json"), "utf8");
    expect(readSummaryFile(dir)).toEqual(written);
    expect(savedSummary(summary)).toEqual(written);
    // Written again (aeb report --write-summary of a recomputed summary), a saved summary gives the same bytes: its keys keep their order.
    writeSummaryFile(dir, savedSummary(summary));
    expect(readFileSync(join(dir, "summary.json"), "utf8")).toBe(bytes);
    expect(() => savedSummary({ ...summary, seed: -1 })).toThrow(
      /the summary is not a run summary:\n {2}- seed: .*\n\(run aeb report with --recompute/,
    );
  });
});
