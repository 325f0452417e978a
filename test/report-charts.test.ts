/**
 * The report's charts: Vega-Lite specs that are pure functions of the summary and the dialogues,
 * rendered to inline SVG in Node. Placeholders instead of empty charts, carried-forward emotion
 * trajectories, scoped SVG ids, escaping and determinism.
 */
import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../src/core/dialogue.js";
import type { TrajectoryType } from "../src/core/trajectory-type.js";
import {
  chartDefinitions,
  emotionPath,
  emotionTrajectories,
  hasActiveContent,
  NO_ECS_MESSAGE,
  renderCharts,
  renderVegaLiteSvg,
  scopeSvg,
} from "../src/report/charts/index.js";
import { ecsVsFsSpec } from "../src/report/charts/ecs-vs-fs.js";
import { lengthVsFsSpec } from "../src/report/charts/length-vs-fs.js";
import { MAX_DIALOGUE_POINTS, sampleDialogueIds, type PointSample } from "../src/report/charts/point-sample.js";
import { readEcs } from "../src/report/ecs-entries.js";
import { summariseRun } from "../src/analysis/run-summary.js";
import { dialogueRow } from "../src/metrics/dialogue-row.js";

const rowsOf = (records: readonly DialogueRecord[]) => records.map(dialogueRow);

interface DialogueSpec {
  condition: string;
  scenarioId?: string;
  type?: TrajectoryType;
  repeat?: number;
  /** Opening emotion, then the emotion after each turn. */
  emotions: number[];
  status?: "done" | "error";
  ecs?: DialogueRecord["ecs"];
}

/** One ECS judge's entry on a dialogue, as src/judges/apply-judge.ts records it (estimates left out). */
function ecsEntry(
  judge: string,
  score: number,
  before: number | null = null,
  after: number | null = null,
): NonNullable<DialogueRecord["ecs"]>[string] {
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
    seed: 7,
    status,
    endReason: status === "error" ? "error" : last <= 10 ? "collapse" : last >= 95 ? "success" : "max_turns",
    preset: "aeb",
    manipulationTurn: 1,
    opening: { text: "My landlord kept the deposit.", emotion: emotions[0] as number },
    turns: emotions.slice(1).map((emotion, index) => ({
      index,
      agent: { text: `reply ${index}`.padEnd(40 + index * 10, "."), chars: 40 + index * 10 },
      user: {
        text: `user ${index}`,
        emotion,
        delta: emotion - (emotions[index] as number),
        simulatorDelta: emotion - (emotions[index] as number),
        adjustments: [],
        flags: [],
      },
    })),
    final: { emotion: last, fs: last / 100 },
    ...(spec.ecs === undefined ? {} : { ecs: spec.ecs }),
  };
}

function summaryOf(records: DialogueRecord[]) {
  return summariseRun(rowsOf(records), { conditionOrder: [], seed: 3, repeats: 2 });
}

const pointsIn = (svg: string) => svg.split('aria-roledescription="point"').length - 1;
/** The entries of a chart's legends, in order. */
const legendLabels = (svg: string) =>
  [...svg.matchAll(/<g class="mark-text role-legend-label"[^>]*><text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);

describe("emotion trajectories", () => {
  it("carries a dialogue that ended early forward at its final emotion", () => {
    expect(emotionPath(dialogue({ condition: "x", emotions: [50, 40, 8] }), 4)).toEqual([50, 40, 8, 8, 8]);
    expect(emotionPath(dialogue({ condition: "x", emotions: [50] }), 2)).toEqual([50, 50, 50]);
  });

  it("averages every scored dialogue at every step with a ±1.96 SE band, and gives no band for one dialogue", () => {
    const records = [
      dialogue({ condition: "a", emotions: [50, 60], repeat: 0 }),
      dialogue({ condition: "a", emotions: [50, 40, 30], repeat: 1 }),
      dialogue({ condition: "b", emotions: [50, 70] }),
      dialogue({ condition: "a", emotions: [50, 0], repeat: 2, status: "error" }),
    ];
    const points = emotionTrajectories(rowsOf(records), ["a", "b"]);
    const a1 = points.find((point) => point.condition === "a" && point.step === 1)!;
    expect(a1.mean).toBe(50);
    expect(a1.n).toBe(2); // the errored dialogue is excluded
    // sd = 14.142, se = 10, half-width 19.6
    expect(a1.low).toBeCloseTo(30.4, 6);
    expect(a1.high).toBeCloseTo(69.6, 6);
    const a2 = points.find((point) => point.condition === "a" && point.step === 2)!;
    expect(a2.mean).toBe(45); // 60 carried forward, and 30
    const b2 = points.find((point) => point.condition === "b" && point.step === 2)!;
    expect(b2).toMatchObject({ mean: 70, low: null, high: null, n: 1 });
  });
});

describe("ECS as the charts read it", () => {
  it("reads judges with a numeric score, skips and counts the rest", () => {
    // `broken` is of another shape than the record schema allows: read defensively all the same.
    const broken = { judge: "broken", score: "high" } as unknown as NonNullable<DialogueRecord["ecs"]>[string];
    const record = dialogue({
      condition: "a",
      emotions: [50, 60],
      ecs: { zeta: ecsEntry("zeta", 0.8, 0.9, 0.7), alpha: ecsEntry("alpha", 0.6), broken },
    });
    expect(readEcs(record)).toEqual({
      entries: [
        { judge: "alpha", score: 0.6, before: null, after: null },
        { judge: "zeta", score: 0.8, before: 0.9, after: 0.7 },
      ],
      unreadable: 1,
    });
    expect(readEcs(dialogue({ condition: "a", emotions: [50] }))).toEqual({ entries: [], unreadable: 0 });
  });
});

describe("chart rendering", () => {
  const plain = [
    dialogue({ condition: "formulaic", emotions: [50, 45, 40, 30], repeat: 0 }),
    dialogue({ condition: "formulaic", emotions: [50, 44, 8], repeat: 1 }),
    dialogue({ condition: "attuned", emotions: [50, 60, 75, 96], repeat: 0 }),
    dialogue({ condition: "attuned", emotions: [50, 62, 80, 97], repeat: 1, type: "gaslighting", scenarioId: "gaslighting-friends" }),
    dialogue({ condition: "solo", emotions: [50, 55] }),
  ];

  it("renders six charts, each with marks, no warnings, no URL, and ids unique across charts", async () => {
    const charts = await renderCharts(summaryOf(plain), rowsOf(plain));
    expect(charts.map((chart) => chart.id)).toEqual([
      "chart-fs",
      "chart-type-heatmap",
      "chart-emotion-trajectory",
      "chart-ecs-vs-fs",
      "chart-ecs-phase",
      "chart-length-vs-fs",
    ]);
    const ids: string[] = [];
    for (const chart of charts) {
      expect(chart.warnings, chart.id).toEqual([]);
      expect(chart.svg.startsWith("<svg")).toBe(true);
      expect(chart.svg).toMatch(/class="mark-[a-z]+ role-mark/);
      expect(chart.svg).not.toMatch(/https?:|xmlns/);
      ids.push(...[...chart.svg.matchAll(/ id="([^"]+)"/g)].map((match) => match[1] as string));
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives every chart with one series per condition a legend entry per condition, drawn opaque; the FS chart names each row on its axis", async () => {
    const judged: DialogueRecord[] = plain.map((record, index) => ({
      ...record,
      ecs: { "judge-a": ecsEntry("judge-a", 0.5 + index / 20, 0.7, 0.5 + index / 50) },
    }));
    const summary = summaryOf(judged);
    const charts = await renderCharts(summary, rowsOf(judged));
    // In the summary's order, the order of the colours.
    const conditions = summary.conditions.map((condition) => condition.name);
    expect([...conditions].sort()).toEqual(["attuned", "formulaic", "solo"]);
    for (const id of ["chart-emotion-trajectory", "chart-ecs-vs-fs", "chart-ecs-phase", "chart-length-vs-fs"]) {
      const svg = charts.find((chart) => chart.id === id)!.svg;
      expect(legendLabels(svg), id).toEqual(conditions);
      // A swatch per entry, fully opaque (a half-transparent layer would otherwise give faint ones).
      const symbols = [...svg.matchAll(/role-legend-symbol"[^>]*><path [^>]*opacity="([\d.]+)"/g)].map((match) => match[1]);
      expect(symbols, id).toEqual(conditions.map(() => "1"));
    }
    // The trajectories' legend shows line swatches, as the lines are drawn.
    expect(charts.find((chart) => chart.id === "chart-emotion-trajectory")!.svg).toMatch(
      /role-legend-symbol"[^>]*><path [^>]*d="M-[\d.]+,0L[\d.]+,0"/,
    );
    // One row per condition, each labelled on the y axis: no legend needed.
    const fs = charts.find((chart) => chart.id === "chart-fs")!.svg;
    expect(legendLabels(fs)).toEqual([]);
    for (const condition of conditions) expect(fs).toMatch(new RegExp(`role-axis-label[\\s\\S]*>${condition}</text>`));
  });

  it('shows a "no ECS judge ran" panel, not an empty chart, when no dialogue has ECS', async () => {
    const charts = await renderCharts(summaryOf(plain), rowsOf(plain));
    for (const id of ["chart-ecs-vs-fs", "chart-ecs-phase"]) {
      const chart = charts.find((item) => item.id === id)!;
      expect(chart.svg).toContain(NO_ECS_MESSAGE);
      expect(pointsIn(chart.svg)).toBe(0);
    }
  });

  it("plots one point per dialogue and judge, plus condition means, when ECS exists", async () => {
    const judged: DialogueRecord[] = plain.map((record, index) => ({
      ...record,
      ecs: { "judge-a": ecsEntry("judge-a", 0.5 + index / 20, 0.7, 0.5 + index / 50) },
    }));
    judged.push(
      dialogue({ condition: "attuned", emotions: [50, 0], repeat: 5, status: "error", ecs: { "judge-a": ecsEntry("judge-a", 0.1) } }),
    );
    const charts = await renderCharts(summaryOf(judged), rowsOf(judged));
    const scatter = charts.find((chart) => chart.id === "chart-ecs-vs-fs")!;
    expect(scatter.svg).not.toContain(NO_ECS_MESSAGE);
    expect(pointsIn(scatter.svg)).toBe(5 + 3); // 5 scored dialogues (the errored one is left out) + 3 condition means
    const phases = charts.find((chart) => chart.id === "chart-ecs-phase")!;
    expect(phases.svg).not.toContain(NO_ECS_MESSAGE);
    expect(phases.svg).toContain("before");
    expect(phases.warnings).toEqual([]);
  });

  it("gives each ECS judge its own panel when several judged the dialogues", async () => {
    const judged: DialogueRecord[] = plain.map((record, index) => ({
      ...record,
      ecs: {
        "a-long-cross-family-judge-name": ecsEntry("a-long-cross-family-judge-name", 0.6, 0.7, 0.6),
        "b-judge": ecsEntry("b-judge", 0.3 + index / 10, 0.5, 0.4),
      },
    }));
    const charts = await renderCharts(summaryOf(judged), rowsOf(judged));
    const scatter = charts.find((chart) => chart.id === "chart-ecs-vs-fs")!;
    expect(scatter.warnings).toEqual([]);
    expect(scatter.svg).toContain("a-long-cross-family-judge-name");
    expect(scatter.svg).toContain("b-judge");
    expect(pointsIn(scatter.svg)).toBe(2 * (5 + 3));
    const phases = charts.find((chart) => chart.id === "chart-ecs-phase")!;
    expect(phases.warnings).toEqual([]);
    expect(phases.svg).toContain("b-judge");
  });

  it("says when a judge ran but recorded no before/after values", async () => {
    const judged: DialogueRecord[] = plain.map((record) => ({ ...record, ecs: { "judge-a": ecsEntry("judge-a", 0.6) } }));
    const charts = await renderCharts(summaryOf(judged), rowsOf(judged));
    expect(charts.find((chart) => chart.id === "chart-ecs-phase")!.svg).toContain("no ECS before/after values");
  });

  it("marks a condition with one dialogue as having no CI", async () => {
    const [fs] = await renderCharts(summaryOf(plain), rowsOf(plain));
    expect(fs!.svg).toContain("(n=1: no CI)");
  });

  it("escapes condition names and is deterministic", async () => {
    const hostile = [
      dialogue({ condition: '<script>alert("x")</script>', emotions: [50, 20] }),
      dialogue({ condition: "ok", emotions: [50, 70] }),
    ];
    const first = await renderCharts(summaryOf(hostile), rowsOf(hostile));
    const second = await renderCharts(summaryOf(hostile), rowsOf(hostile));
    expect(first.map((chart) => chart.svg)).toEqual(second.map((chart) => chart.svg));
    for (const chart of first) expect(chart.svg).not.toContain("<script");
    expect(first[0]!.svg).toContain("&lt;script&gt;");
  });

  it("specs are plain data (pure functions of summary and dialogues)", () => {
    const specs = chartDefinitions(summaryOf(plain), rowsOf(plain));
    expect(JSON.parse(JSON.stringify(specs))).toEqual(specs);
  });
});

describe("hasActiveContent", () => {
  it("finds scripts, event handlers and javascript links in tags, not in escaped text or attribute values", () => {
    expect(hasActiveContent("<svg><script>x()</script></svg>")).toBe(true);
    expect(hasActiveContent('<svg><g onload="x()"></g></svg>')).toBe(true);
    expect(hasActiveContent("<svg><foreignObject><div/></foreignObject></svg>")).toBe(true);
    expect(hasActiveContent('<svg><a href="javascript:x()"></a></svg>')).toBe(true);
    expect(hasActiveContent('<svg><g aria-label="judge: a onload=alert(1)"><text>&lt;script&gt; onclick=x</text></g></svg>')).toBe(false);
  });

  it("lets a judge named like an event handler through Vega harmlessly", async () => {
    const judged: DialogueRecord[] = [
      dialogue({ condition: "a", emotions: [50, 40], ecs: { "x onload=alert(1)": ecsEntry("x onload=alert(1)", 0.5) } }),
    ];
    const charts = await renderCharts(summaryOf(judged), rowsOf(judged));
    expect(charts.find((chart) => chart.id === "chart-ecs-vs-fs")!.svg).toContain("x onload=alert(1)");
  });
});

describe("scopeSvg", () => {
  it("renames ids and their references, and drops namespace URLs", () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><defs><clipPath id="clip1"/><linearGradient id="gradient_7"/></defs><g clip-path="url(#clip1)"><path fill="url(#gradient_7)"/><use xlink:href="#clip1"/></g></svg>';
    expect(scopeSvg(svg, "c")).toBe(
      '<svg><defs><clipPath id="c-1"/><linearGradient id="c-2"/></defs><g clip-path="url(#c-1)"><path fill="url(#c-2)"/><use href="#c-1"/></g></svg>',
    );
  });
});

describe("per-dialogue charts of a large run (point-sample.ts)", () => {
  /** `perCondition` scored dialogues of each condition, FS and ECS varying with the repeat. */
  function manyDialogues(perCondition: Record<string, number>): DialogueRecord[] {
    return Object.entries(perCondition).flatMap(([condition, count]) =>
      Array.from({ length: count }, (_, repeat) => {
        const last = 20 + ((repeat * 7) % 70);
        return {
          ...dialogue({ condition, emotions: [50, 40, last], repeat }),
          ecs: { "judge-a": ecsEntry("judge-a", 0.3 + ((repeat * 3) % 60) / 100, 0.6, 0.4) },
        };
      }),
    );
  }
  const idsOf = (sample: PointSample) => [...(sample.ids ?? [])].sort();

  it("draws every dialogue up to the limit, and above it a fixed sample that keeps each condition's share and does not depend on the order", () => {
    const records = manyDialogues({ attuned: 30, formulaic: 10 });
    const dialogues = records.map((record) => ({ id: record.id, condition: record.condition }));
    expect(sampleDialogueIds(dialogues, 1, 40)).toEqual({ ids: undefined, total: 40, drawn: 40 });
    const sample = sampleDialogueIds(dialogues, 1, 8);
    expect(sample.total).toBe(40);
    expect(sample.drawn).toBe(8);
    const drawn = idsOf(sample);
    expect(drawn.filter((id) => id.startsWith("attuned/"))).toHaveLength(6);
    expect(drawn.filter((id) => id.startsWith("formulaic/"))).toHaveLength(2);
    expect(idsOf(sampleDialogueIds([...dialogues].reverse(), 1, 8))).toEqual(drawn);
    // Another seed draws other dialogues (the sample is a seeded choice, not the first ids).
    expect(idsOf(sampleDialogueIds(dialogues, 2, 8))).not.toEqual(drawn);
    // A condition far below its share still gets a point.
    expect(
      idsOf(
        sampleDialogueIds(
          manyDialogues({ attuned: 400, solo: 1 }).map((record) => ({ id: record.id, condition: record.condition })),
          1,
          10,
        ),
      ),
    ).toContain("solo/escalation-landlord/0");
  });

  it("plots the sample and marks the condition means over every dialogue", async () => {
    const records = manyDialogues({ attuned: 30, formulaic: 10 });
    const rows = rowsOf(records);
    const summary = summaryOf(records);
    const sample = sampleDialogueIds(rows, summary.seed, 8);
    const means = (condition: string, pick: (record: DialogueRecord) => number) => {
      const of = records.filter((record) => record.condition === condition).map(pick);
      return of.reduce((sum, value) => sum + value, 0) / of.length;
    };
    for (const spec of [lengthVsFsSpec(summary, rows, sample), ecsVsFsSpec(summary, rows, sample)]) {
      const values = (spec as { data: { values: Array<Record<string, unknown>> } }).data.values;
      expect(
        values
          .filter((value) => value.mark === "dialogue")
          .map((value) => value.id)
          .sort(),
      ).toEqual(idsOf(sample));
      const diamonds = values.filter((value) => value.mark === "mean");
      expect(diamonds.map((value) => value.condition)).toEqual(["attuned", "formulaic"]);
      for (const diamond of diamonds)
        expect(diamond.fs).toBeCloseTo(
          means(diamond.condition as string, (record) => record.final.fs),
          12,
        );
      const svg = (await renderVegaLiteSvg(spec, "sampled")).svg;
      expect(pointsIn(svg)).toBe(8 + 2);
    }
    const ecsDiamonds = (ecsVsFsSpec(summary, rows, sample) as { data: { values: Array<Record<string, unknown>> } }).data.values.filter(
      (value) => value.mark === "mean",
    );
    for (const diamond of ecsDiamonds)
      expect(diamond.ecs).toBeCloseTo(
        means(diamond.condition as string, (record) => record.ecs!["judge-a"]!.score as number),
        12,
      );
  });

  it("says in the two captions that the points are a sample, above the limit only", () => {
    const small = manyDialogues({ attuned: 3 });
    for (const chart of chartDefinitions(summaryOf(small), rowsOf(small))) expect(chart.caption).not.toContain("fixed sample");
    const large = manyDialogues({ attuned: MAX_DIALOGUE_POINTS, formulaic: 2 });
    const charts = chartDefinitions(summaryOf(large), rowsOf(large));
    const sampled = charts
      .filter((chart) => chart.caption.includes(`the points are a fixed sample of ${MAX_DIALOGUE_POINTS.toLocaleString("en-US")}`))
      .map((chart) => chart.id);
    expect(sampled).toEqual(["chart-ecs-vs-fs", "chart-length-vs-fs"]);
    // The ECS phase chart takes its means before Vega: one value per condition, type, judge and phase.
    const phase = charts.find((chart) => chart.id === "chart-ecs-phase")!.spec as { data: { values: unknown[] } };
    expect(phase.data.values).toHaveLength(2 * 2);
  });
});
