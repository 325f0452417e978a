/**
 * report.html and report.md as pure functions of the saved record: the tables, the notes, the
 * worst dialogues with whole transcripts, escaping of hostile transcript text, no external
 * resource, and the same bytes for the same input.
 */
import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../src/core/dialogue.js";
import type { TrajectoryType } from "../src/core/trajectory-type.js";
import { NO_ECS_MESSAGE } from "../src/report/charts/index.js";
import { fixed, formatP } from "../src/report/format.js";
import { renderHtmlReport } from "../src/report/html-report.js";
import { renderMarkdownReport } from "../src/report/markdown-report.js";
import { buildReportModel, reportInputOfRecords, type ReportInput } from "../src/report/report-model.js";
import { summariseRun } from "../src/analysis/run-summary.js";
import type { RunSummary } from "../src/analysis/summary-schema.js";
import { dialogueRow } from "../src/metrics/dialogue-row.js";

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

/** One ECS judge's entry on a dialogue, as src/judges/judge-dialogue.ts records it (estimates left out). */
function ecsEntry(judge: string, score: number, before: number | null, after: number | null): NonNullable<DialogueRecord["ecs"]>[string] {
  return { judge, score, before, after, drop: before !== null && after !== null ? before - after : null, spearman: null, turns: 2, estimates: [], errors: [] };
}

/**
 * The report input of these dialogues, with the summary summariseRun makes of them; `extra`
 * overrides summary fields, e.g. to stand for a summary.json of another shape or an older one.
 */
function input(records: DialogueRecord[], extra: Record<string, unknown> = {}): ReportInput {
  const summary = { ...summariseRun(records.map(dialogueRow), { conditionOrder: [], seed: 5, repeats: 4 }), ...extra } as RunSummary;
  return reportInputOfRecords(summary, records, { setup: { conditions: [{ name: "base", agent: { kind: "reference", id: "formulaic" } }], simulator: { kind: "offline" } } });
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
const HOSTILE_USER = "</p><img src=x onerror=alert(1)><script src=\"https://evil.example/x.js\"></script>";

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
    for (const header of ["FS [95% CI]", "collapse [95% CI]", "HID", "ECS", "reply chars", "errors"]) expect(page).toContain(`>${header}</th>`);
    // solo has one dialogue: no interval, and the report says so
    expect(page).toContain("0.650 (n=1: no CI)");
    expect(page).toContain("solo: only 1 scored dialogue(s); no interval is given");
    expect(page).toContain("base: 1 dialogue(s) ended in error and are excluded from every statistic");
    expect(page).toContain("0.330 (n=3)"); // base on escalation: (30 + 9 + 60) / 3 / 100
    expect(page).toContain("0.540 (n=1)"); // base on gaslighting
    expect(page).toContain("ECS is n/a: no ECS judge ran.");
  });

  it('says "no comparisons" when summary.comparisons is empty, and lays them out by metric when present', async () => {
    const empty = await renderHtmlReport(input(mixedRun(), { comparisons: [] }));
    expect(empty).toMatch(/No comparisons/);
    // summariseRun's own comparisons (base and tuned have two dialogues or more each): every row is in the table.
    const real = input(mixedRun());
    expect(real.summary.comparisons.length).toBeGreaterThan(0);
    const realPage = await renderHtmlReport(real);
    expect(realPage).not.toMatch(/No comparisons/);
    const realSection = realPage.slice(realPage.indexOf('<section id="comparisons">'), realPage.indexOf('<section id="length-confound">'));
    for (const row of real.summary.comparisons) {
      expect(realSection).toContain(`<h3>${row.metric}</h3>`);
      expect(realSection).toContain(
        `<tr><td>${row.metric}</td><td>${row.test}</td><td>${row.a}</td><td>${row.b}</td><td class="num">${row.n}</td><td class="num">${formatP(row.p)}</td><td class="num">${formatP(row.pHolm)}</td><td class="num">${fixed(row.r)}</td>`,
      );
    }
    expect(realSection.match(/<tr><td>/g)).toHaveLength(real.summary.comparisons.length);
    expect(real.summary.comparisons.find((row) => row.metric === "fs" && row.test === "mannwhitney")).toMatchObject({ a: "base", b: "tuned", n: 6 });
    const comparisons = [
      { metric: "fs", test: "mannwhitney", a: "base", b: "tuned", n: 6, p: 0.0123, pHolm: 0.0246, r: -0.75, extra: "ignored" },
      { metric: "fs", test: "wilcoxon", a: "base", b: "tuned", n: 2, p: 3e-13, pHolm: 6e-13, r: 1 },
      { metric: "hid", test: "mannwhitney", a: "base", b: "<tuned>", n: 6, p: null, pHolm: null, r: null },
      { metric: "fs" },
    ];
    const page = await renderHtmlReport(input(mixedRun(), { comparisons }));
    expect(page).not.toMatch(/No comparisons/);
    expect(page).toContain("<h3>fs</h3>");
    expect(page).toContain("<h3>hid</h3>");
    for (const header of ["metric", "test", "a", "b", "n", "p", "Holm p", "r"]) expect(page).toContain(`>${header}</th>`);
    expect(page).toContain('<td class="num">0.012</td><td class="num">0.025</td><td class="num">-0.750</td>');
    expect(page).toContain('<td class="num">3.0e-13</td><td class="num">6.0e-13</td>');
    expect(page).toContain("&lt;tuned&gt;");
    expect(page).toContain("1 comparison entry could not be read (missing metric, test, a, b or p) and is not shown.");
  });

  it("shows the length-confound table when summary.json has one, and a sentence when not", async () => {
    // A summary.json written before the length-confound analysis existed has no such field.
    const without = await renderHtmlReport(input(mixedRun(), { lengthConfound: undefined }));
    expect(without).toContain("summary.json has no length-confound analysis");
    // summariseRun's own rows (one pair, base and tuned, has two dialogues or more on each side).
    const real = input(mixedRun());
    expect(real.summary.lengthConfound.map((row) => [row.a, row.b])).toEqual([["base", "tuned"]]);
    const realPage = await renderHtmlReport(real);
    expect(realPage).not.toContain("summary.json has no length-confound analysis");
    const realRow = real.summary.lengthConfound[0]!;
    expect(realPage).toContain(`<td>base</td><td>tuned</td><td class="num">${fixed(realRow.coefficient)}</td><td class="num">${formatP(realRow.p)}</td>`);
    const lengthConfound = [{ a: "base", b: "tuned", coefficient: 0.41, p: 0.0004, coefficientAdjusted: 0.38, pAdjusted: 0.002, rhoA: 0.12, rhoB: -0.3 }];
    const page = await renderHtmlReport(input(mixedRun(), { lengthConfound }));
    expect(page).not.toContain("summary.json has no length-confound analysis");
    expect(page).toContain("coef. adjusted for length");
    expect(page).toContain('<td class="num">0.410</td><td class="num">4.0e-4</td><td class="num">0.380</td><td class="num">0.002</td><td class="num">0.120</td><td class="num">-0.300</td>');
    // An entry of another shape (e.g. nested results) is counted, not shown as a row of n/a.
    const nested = await renderHtmlReport(input(mixedRun(), { lengthConfound: [...lengthConfound, { a: "base", b: "solo", unadjusted: { coefficient: 0.2 } }] }));
    expect(nested).toContain("1 length-confound entry could not be read (missing a, b, coefficient or p) and is not shown.");
    const section = nested.slice(nested.indexOf('<section id="length-confound">'), nested.indexOf('<section id="charts">'));
    expect(section).toContain("<td>base</td><td>tuned</td>");
    expect(section).not.toContain("<td>solo</td>");
  });

  it("prints the three lowest-FS dialogues per condition with whole transcripts, never errored ones", async () => {
    const records = mixedRun();
    const model = buildReportModel(input(records));
    expect(model.worst.map((group) => [group.condition, group.dialogues.map((record) => record.final.fs)])).toEqual([
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
    const judged = mixedRun().map((record, index) => ({ ...record, ecs: { "cross-family": ecsEntry("cross-family", 0.4 + index / 50, 0.6, 0.5) } }));
    // Judged dialogues beside a summary.json made before judges existed (no ECS means, no judges).
    const page = await renderHtmlReport({ ...input(unjudged, { judges: undefined }), ...reportInputOfRecords(input(unjudged, { judges: undefined }).summary, judged) });
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
    expect(judgedPage).toContain(`<td class="num">${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}]</td>`);
    expect(judgedPage).toContain("<h3>cross-family (the headline ECS)</h3>");
    expect(judgedPage).toContain('<td>base</td><td class="num">' + `${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}]</td><td class="num">0.600</td><td class="num">0.500</td><td class="num">0.100</td><td class="num">4</td><td class="num">0</td>`);
  });

  it("shows every ECS judge, the independent HID judges beside the simulator's HID, and the token usage", async () => {
    const records = mixedRun().map((record, index) =>
      record.status === "error"
        ? record
        : {
            ...record,
            ecs: { "llm-judge": ecsEntry("llm-judge", 0.5 + index / 40, 0.7, 0.45), "offline-lexicon": ecsEntry("offline-lexicon", 0.8, 0.9, 0.75) },
            hid: { "hid-judge": index === 1 ? { judge: "hid-judge", error: "evidence not found in the transcript" } : { judge: "hid-judge", verdict: "yes" as const, value: 1, turn: 1, evidence: "reply" } },
          },
    );
    const summary = summariseRun(records.map(dialogueRow), { conditionOrder: ["base", "tuned", "solo"], seed: 5, repeats: 4, judges: { ecs: ["llm-judge", "offline-lexicon"], hid: ["hid-judge"] } });
    const usage = [
      { model: "qwen-7b", role: "agent:base", calls: 20, cachedCalls: 2, failedCalls: 0, requests: 21, retries: 1, promptTokens: 12000, completionTokens: 3400 },
      { model: "gpt-judge", role: "judge:llm-judge", calls: 40, cachedCalls: 0, failedCalls: 1, requests: 42, retries: 2, promptTokens: 30000, completionTokens: 800 },
    ];
    const report: ReportInput = reportInputOfRecords({ ...summary, usage }, records);
    const page = await renderHtmlReport(report);
    const markdown = renderMarkdownReport(report);
    const base = summary.conditions.find((condition) => condition.name === "base")!;
    // One table per ECS judge, the first (the headline's) first.
    expect(page.indexOf("<h3>llm-judge (the headline ECS)</h3>")).toBeGreaterThan(0);
    const baselineTitle = "ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge";
    expect(page.indexOf(`<h3>${baselineTitle.replace("'", "&#39;")}</h3>`)).toBeGreaterThan(page.indexOf("<h3>llm-judge (the headline ECS)</h3>"));
    expect(markdown).toContain("| ECS judges | llm-judge (model judge, the headline ECS), offline-lexicon (ECS lexicon baseline: reads the user's messages only, not a model judge) |");
    const offline = base.ecsByJudge["offline-lexicon"]!;
    expect(markdown).toContain(`| base | ${fixed(offline.mean!.mean)} [${fixed(offline.mean!.ci95![0])}, ${fixed(offline.mean!.ci95![1])}] | 0.900 | 0.750 | 0.150 | 4 | 0 |`);
    expect(markdown).toContain(`| base | 4 | ${fixed(base.fs.mean)} [`);
    expect(markdown).toContain(`| ${fixed(base.ecs!.mean)} [`);
    // The independent HID judge beside the simulator's HID, with what it could and could not judge.
    const hidJudge = base.hidByJudge["hid-judge"]!;
    expect(hidJudge.judged + hidJudge.judgeErrors).toBe(4);
    expect(markdown).toContain("## HID: the simulated user and the independent judges");
    expect(markdown).toContain("| condition | simulator HID [95% CI] | hid-judge [95% CI] | hid-judge: judged | hid-judge: errors |");
    expect(markdown).toContain(`| base | ${fixed(base.hid!.mean)} [${fixed(base.hid!.ci95![0])}, ${fixed(base.hid!.ci95![1])}] | ${fixed(hidJudge.mean!.mean)}`);
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
    expect(page).toContain("<h3>ecs:offline-lexicon</h3>");
    expect(page).toContain("<h3>hid:hid-judge</h3>");
    // An offline run has neither section.
    const offlinePage = await renderHtmlReport(input(mixedRun()));
    expect(offlinePage).not.toContain('<section id="hid">');
    expect(offlinePage).not.toContain('<section id="usage">');
  });

  it("takes the headline ECS from the first model judge, even after the lexicon baseline, and relabels a summary written before the distinction", async () => {
    const records = mixedRun().map((record, index) =>
      record.status === "error" ? record : { ...record, ecs: { "offline-lexicon": ecsEntry("offline-lexicon", 0.8, 0.9, 0.75), "llm-judge": { ...ecsEntry("llm-ecs:gemma", 0.5 + index / 40, 0.7, 0.45), model: "gemma" } } },
    );
    const summary = summariseRun(records.map(dialogueRow), { conditionOrder: ["base", "tuned", "solo"], seed: 5, repeats: 4, judges: { ecs: ["offline-lexicon", "llm-judge"], hid: [] } });
    expect(summary.judges).toMatchObject({ headlineEcs: "llm-judge", heuristicEcs: { "offline-lexicon": "offline-lexicon" } });
    const base = summary.conditions.find((condition) => condition.name === "base")!;
    expect(base.ecs).toEqual(base.ecsByJudge["llm-judge"]!.mean);
    const metrics = new Set(summary.comparisons.map((row) => row.metric));
    expect(metrics).toContain("ecs");
    expect(metrics).toContain("ecs:offline-lexicon");
    expect(summary.comparisons.find((row) => row.metric === "ecs")?.meanA).toBeCloseTo(base.ecsByJudge["llm-judge"]!.mean!.mean!, 12);
    const headlineCell = `| ${fixed(base.ecs!.mean)} [${fixed(base.ecs!.ci95![0])}, ${fixed(base.ecs!.ci95![1])}] |`;
    expect(renderMarkdownReport(reportInputOfRecords(summary, records))).toContain(headlineCell);

    // The same dialogues under a summary.json of the older kind: no headlineEcs, `ecs` the first judge's (the baseline's), its comparisons named `ecs`.
    const older = structuredClone(summary) as RunSummary;
    delete older.judges.headlineEcs;
    delete older.judges.heuristicEcs;
    for (const condition of older.conditions) condition.ecs = condition.ecsByJudge["offline-lexicon"]!.mean;
    older.comparisons = older.comparisons.map((row) => ({ ...row, metric: row.metric === "ecs" ? "ecs:llm-judge" : row.metric === "ecs:offline-lexicon" ? "ecs" : row.metric }));
    const markdown = renderMarkdownReport(reportInputOfRecords(older, records));
    expect(markdown).toContain(headlineCell);
    expect(markdown).not.toContain(`| ${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.mean)} [${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.ci95![0])}, ${fixed(base.ecsByJudge["offline-lexicon"]!.mean!.ci95![1])}] | 4 |`);
    expect(markdown).toContain("### llm-judge (the headline ECS)");
    expect(markdown).toContain("### ECS lexicon baseline (offline-lexicon)");
    // Its `ecs` comparisons were the baseline's: shown under that judge's name.
    expect(markdown).toContain("### ecs:offline-lexicon");
    expect(markdown).not.toMatch(/^### ecs$/m);

    // An older summary whose only judge is the baseline: its `ecs` means are never the headline.
    const lexiconOnly = records.map((record) => (record.ecs === undefined ? record : { ...record, ecs: { "offline-lexicon": record.ecs["offline-lexicon"]! } }));
    const oldLexicon = summariseRun(lexiconOnly.map(dialogueRow), { conditionOrder: ["base", "tuned", "solo"], seed: 5, repeats: 4 });
    delete oldLexicon.judges.headlineEcs;
    for (const condition of oldLexicon.conditions) condition.ecs = condition.ecsByJudge["offline-lexicon"]!.mean;
    const oldMarkdown = renderMarkdownReport(reportInputOfRecords(oldLexicon, lexiconOnly));
    expect(oldMarkdown).toMatch(/^\| base \| 4 \| [^|]+\| [^|]+\| [^|]+\| n\/a \(no model judge\) \|/m);
    expect(oldMarkdown).toContain("ECS is n/a (no model judge): offline-lexicon is the ECS lexicon baseline");
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
    // A summary.json with one comparison and no length-confound analysis (written before it existed).
    const text = renderMarkdownReport(input(mixedRun(), { comparisons: [{ metric: "fs", test: "mannwhitney", a: "base", b: "tuned", n: 6, p: 0.0123, pHolm: 0.0246, r: -0.75 }], lengthConfound: undefined }));
    expect(text).toContain("# AEB run report");
    expect(text).toContain("| condition | n | FS [95% CI] | collapse [95% CI] | HID | ECS | reply chars | errors |");
    expect(text).toContain("0.650 (n=1: no CI)");
    expect(text).toContain("| metric | test | a | b | n | p | Holm p | r |");
    expect(text).toContain("| fs | mannwhitney | base | tuned | 6 | 0.012 | 0.025 | -0.750 |");
    expect(text).toContain("summary.json has no length-confound analysis");
    expect(text).toContain("## Worst dialogues per condition");
    expect(text).toContain("- base/escalation-landlord/1 (escalation): FS 0.090, collapse after 2 turn(s); emotion 50 → 45 → 9.");
    expect(text).not.toContain("<svg");
    expect(text).toContain("- base: 1 dialogue(s) ended in error and are excluded from every statistic");
    // With summariseRun's own summary: its comparisons and its length-confound row.
    const real = input(mixedRun());
    const realText = renderMarkdownReport(real);
    for (const row of real.summary.comparisons) {
      expect(realText).toContain(`| ${row.metric} | ${row.test} | ${row.a} | ${row.b} | ${row.n} | ${formatP(row.p)} | ${formatP(row.pHolm)} | ${fixed(row.r)} | ${fixed(row.meanA)} | ${fixed(row.meanB)} |`);
    }
    expect(realText).toContain("| a | b | condition coef. | p | coef. adjusted for length | p adjusted | rho(length, FS) in a | rho(length, FS) in b |");
    expect(realText).toContain(`| base | tuned | ${fixed(real.summary.lengthConfound[0]!.coefficient)} |`);
  });

  it("says no comparisons when there are none", () => {
    expect(renderMarkdownReport(input(mixedRun(), { comparisons: [] }))).toContain("No comparisons: summary.json lists none.");
  });

  it("escapes transcript text so it cannot inject markup or break a line", () => {
    const records = [dialogue({ condition: "base", emotions: [50, 20], userText: "line one\n<script>alert(1)</script> | *bold* [link](x)" })];
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
