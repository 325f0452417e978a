import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import { dialogueRow, type DialogueRow } from "../metrics/dialogue-row.js";
import { deriveSeed } from "../core/random.js";
import { bootstrapMeanCI } from "../stats/bootstrap.js";
import { holmAdjust } from "../stats/holm.js";
import { mannWhitneyU } from "../stats/mann-whitney.js";
import { wilcoxonSignedRank } from "../stats/wilcoxon.js";
import { compareConditions, matchScenarioMeans } from "./compare-conditions.js";

function record(
  condition: string,
  scenarioId: string,
  repeat: number,
  emotion: number,
  endReason: DialogueRecord["endReason"] = "max_turns",
  chars = 100,
): DialogueRow {
  return dialogueRow({
    id: `${condition}/${scenarioId}/${repeat}`,
    condition,
    scenarioId,
    type: "escalation",
    repeat,
    seed: 1,
    status: "done",
    endReason,
    preset: "aeb",
    manipulationTurn: 1,
    opening: { text: "x", emotion: 50 },
    turns: [
      {
        index: 1,
        agent: { text: "a".repeat(chars), chars },
        user: { text: "u", emotion, delta: 0, simulatorDelta: 0, adjustments: [], flags: [], hid: emotion > 50 ? "yes" : "no" },
      },
    ],
    final: { emotion, fs: emotion / 100 },
  });
}

const fs = (r: DialogueRow) => r.metrics.fs;

describe("compareConditions", () => {
  const records = [
    ...[60, 70, 80, 90].flatMap((e, i) => [
      record("good", `s${i}`, 0, e, "max_turns", 100 + i),
      record("good", `s${i}`, 1, e - 5, "max_turns", 90 + i),
    ]),
    ...[20, 30, 50, 40].flatMap((e, i) => [
      record("poor", `s${i}`, 0, e, i === 0 ? "collapse" : "max_turns", 80 + i),
      record("poor", `s${i}`, 1, e + 5, "collapse", 70 + i),
    ]),
    record("third", "s0", 0, 55),
  ];
  const result = compareConditions(records, ["good", "poor", "third"], { fs }, { seed: 3 });

  it("runs the paper's Mann-Whitney over dialogues, as the stats module computes it", () => {
    const row = result.comparisons.find((c) => c.test === "mannwhitney" && c.a === "good" && c.b === "poor")!;
    const direct = mannWhitneyU(
      records.filter((r) => r.condition === "good").map(fs),
      records.filter((r) => r.condition === "poor").map(fs),
    );
    expect(row).toMatchObject({ metric: "fs", n: 16, p: direct.p, r: direct.rankBiserial });
    expect(row.r).toBeGreaterThan(0); // the first condition (good) is higher
  });

  it("gives r one sign for both tests: positive when the first-named condition scores higher (docs/statistics.md)", () => {
    const of = (test: string, a: string, b: string) =>
      result.comparisons.find((c) => c.metric === "fs" && c.test === test && c.a === a && c.b === b)!;
    // good is above poor on 63 of the 64 pairs of dialogues (one pair ties at 0.55), and on every scenario's mean.
    expect(of("mannwhitney", "good", "poor").r).toBe(63 / 64);
    expect(of("wilcoxon", "good", "poor").r).toBe(1);
    // The same data named the other way round: poor first, below good everywhere.
    const reversed = compareConditions(records, ["poor", "good"], { fs }, { seed: 3 });
    const reversedOf = (test: string) => reversed.comparisons.find((c) => c.metric === "fs" && c.test === test)!;
    expect(reversedOf("mannwhitney")).toMatchObject({ a: "poor", b: "good", r: -63 / 64 });
    expect(reversedOf("wilcoxon")).toMatchObject({ a: "poor", b: "good", r: -1 });
    // A mixed case: r is the share of pairs (mannwhitney) or signed ranks (wilcoxon) in a's favour minus the rest.
    const mixed = [
      ...[60, 50, 40].map((emotion, index) => record("x", `m${index}`, 0, emotion)),
      ...[50, 30, 45].map((emotion, index) => record("y", `m${index}`, 0, emotion)),
    ];
    const mixedResult = compareConditions(mixed, ["x", "y"], { fs }, { seed: 3 });
    const mixedOf = (test: string) => mixedResult.comparisons.find((c) => c.metric === "fs" && c.test === test)!.r!;
    // Pairs x > y: 0.6 beats all 3, 0.5 beats 2 and ties 1, 0.4 beats 1: (6 + 0.5 - 2.5) / 9.
    expect(mixedOf("mannwhitney")).toBeCloseTo((6.5 - 2.5) / 9, 12);
    // Differences +0.1, +0.2, -0.05: ranks 2, 3 positive and 1 negative: (5 - 1) / 6.
    expect(mixedOf("wilcoxon")).toBeCloseTo(4 / 6, 12);
  });

  it("runs Wilcoxon on per-scenario means of the scenarios both ran", () => {
    const matched = matchScenarioMeans(
      records.filter((r) => r.condition === "good"),
      records.filter((r) => r.condition === "poor"),
      fs,
    );
    expect(matched.scenarios).toEqual(["s0", "s1", "s2", "s3"]);
    expect(matched.a[0]).toBeCloseTo(0.575, 12);
    const row = result.comparisons.find((c) => c.test === "wilcoxon" && c.a === "good" && c.b === "poor")!;
    expect(row.p).toBe(wilcoxonSignedRank(matched.a, matched.b).p);
    expect(row.n).toBe(4);
  });

  it("applies Holm within each metric and test (one family of every pair when there is no reference)", () => {
    const family = result.comparisons.filter((c) => c.metric === "fs" && c.test === "mannwhitney");
    expect(family.map((c) => c.family)).toEqual(family.map(() => "other"));
    expect(family.map((c) => c.pHolm)).toEqual(holmAdjust(family.map((c) => c.p)));
  });

  it("gives each matched test the mean matched difference a - b with a seeded bootstrap interval", () => {
    const row = result.comparisons.find((c) => c.metric === "fs" && c.test === "wilcoxon" && c.a === "good" && c.b === "poor")!;
    const matched = matchScenarioMeans(
      records.filter((r) => r.condition === "good"),
      records.filter((r) => r.condition === "poor"),
      fs,
    );
    const differences = matched.a.map((value, index) => value - matched.b[index]!);
    expect(row.difference).toEqual(bootstrapMeanCI(differences, { seed: deriveSeed(3, "difference", "fs", "wilcoxon", "good", "poor") }));
    expect(row.difference!.mean).toBeCloseTo(0.725 - 0.375, 12);
    expect(row.difference!.ci95![0]).toBeGreaterThan(0);
    // The Mann-Whitney row is unmatched: no matched difference.
    expect(result.comparisons.find((c) => c.test === "mannwhitney" && c.a === "good" && c.b === "poor")!.difference).toBeUndefined();
    // Collapses: good never collapsed, poor did in 5 of the 8 matched pairs.
    const collapse = result.comparisons.find((c) => c.test === "mcnemar" && c.a === "good" && c.b === "poor")!;
    expect(collapse.difference!.mean).toBeCloseTo(-5 / 8, 12);
    expect(collapse.difference!.ci95![1]).toBeLessThan(0);
    // The same seed gives the same intervals.
    expect(compareConditions(records, ["good", "poor", "third"], { fs }, { seed: 3 }).comparisons).toEqual(result.comparisons);
  });

  it("uses exact McNemar on collapses matched by scenario and repeat", () => {
    const row = result.comparisons.find((c) => c.test === "mcnemar" && c.a === "good" && c.b === "poor")!;
    expect(row).toMatchObject({ metric: "collapse", n: 8, discordant: { aOnly: 0, bOnly: 5 } });
    expect(row.p).toBeCloseTo(0.0625, 12);
  });

  it("says when a condition has too little data instead of testing it", () => {
    expect(result.comparisons.some((c) => c.test === "mannwhitney" && c.b === "third")).toBe(false);
    expect(result.notes).toContain("fs good vs third: too few dialogues (8 and 1) for a test");
    expect(result.notes).toContain("fs good vs third: only 1 matched scenario, no matched test");
  });

  it("reports the length-confound regression with and without the covariate", () => {
    const row = result.lengthConfound.find((c) => c.a === "good" && c.b === "poor")!;
    expect(row.coefficient).toBeCloseTo(0.375 - 0.725, 10); // mean FS poor - good
    expect(row.coefficientAdjusted).not.toBeNull();
    expect(row.rhoA).not.toBeNull();
  });
});

describe("compareConditions with a reference condition", () => {
  // Sixteen conditions on 12 scenarios: the reference is clearly better than a harmful one; the
  // other 14 are alike. Over all 120 pairs Holm would multiply the smallest p by 120.
  const scenarios = Array.from({ length: 12 }, (_, index) => `s${index}`);
  const level = (condition: string, index: number) =>
    condition === "attuned" ? 80 : condition === "insulting" ? 60 : 50 + ((index * 7 + condition.length) % 11);
  const names = ["attuned", "insulting", ...Array.from({ length: 14 }, (_, index) => `other${index}`)];
  const rows = names.flatMap((condition) =>
    scenarios.map((scenario, index) => record(condition, scenario, 0, level(condition, index) + (index % 3))),
  );
  const withReference = compareConditions(rows, names, { fs }, { seed: 9, reference: "attuned" });
  const without = compareConditions(rows, names, { fs }, { seed: 9 });

  it("puts the reference's pairs in a family of their own, and adjusts Holm within each family", () => {
    const wilcoxon = withReference.comparisons.filter((c) => c.metric === "fs" && c.test === "wilcoxon");
    const reference = wilcoxon.filter((c) => c.family === "reference");
    const other = wilcoxon.filter((c) => c.family === "other");
    expect(reference).toHaveLength(15);
    expect(reference.every((c) => c.a === "attuned" || c.b === "attuned")).toBe(true);
    expect(other).toHaveLength(120 - 15);
    expect(other.some((c) => c.a === "attuned" || c.b === "attuned")).toBe(false);
    expect(reference.map((c) => c.pHolm)).toEqual(holmAdjust(reference.map((c) => c.p)));
    expect(other.map((c) => c.pHolm)).toEqual(holmAdjust(other.map((c) => c.p)));
  });

  it("keeps the raw p and makes the reference comparisons' Holm p smaller than over every pair", () => {
    const of = (set: typeof withReference, b: string) =>
      set.comparisons.find((c) => c.metric === "fs" && c.test === "wilcoxon" && c.a === "attuned" && c.b === b)!;
    expect(of(withReference, "insulting").p).toBe(of(without, "insulting").p);
    expect(of(withReference, "insulting").pHolm).toBeLessThan(of(without, "insulting").pHolm);
    // The pair's orientation is the condition order, whichever is the reference: a - b stays a - b.
    const reversed = compareConditions(rows, names, { fs }, { seed: 9, reference: "insulting" });
    const pair = reversed.comparisons.find((c) => c.metric === "fs" && c.test === "wilcoxon" && c.a === "attuned" && c.b === "insulting")!;
    expect(pair.family).toBe("reference");
    expect(pair.difference!.mean).toBeGreaterThan(0);
  });

  it("draws each difference interval from a seed of the run seed, the metric, the test and the pair", () => {
    const pick = (set: typeof withReference) =>
      set.comparisons.find((c) => c.metric === "fs" && c.test === "wilcoxon" && c.a === "attuned" && c.b === "other3")!.difference!;
    const reseeded = compareConditions(rows, names, { fs }, { seed: 10, reference: "attuned" });
    expect(pick(reseeded).mean).toBe(pick(withReference).mean);
    expect(pick(reseeded).ci95).not.toEqual(pick(withReference).ci95);
  });
});

describe("compareConditions on degenerate data", () => {
  it("notes an undefined test instead of reporting a NaN p-value", () => {
    const flat = [
      ...Array.from({ length: 20 }, (_, i) => record("a", `s${i}`, 0, 50)),
      ...Array.from({ length: 20 }, (_, i) => record("b", `s${i}`, 0, 50)),
    ];
    const result = compareConditions(flat, ["a", "b"], { fs }, { seed: 3 });
    for (const row of result.comparisons) {
      expect(Number.isFinite(row.p)).toBe(true);
      expect(Number.isFinite(row.pHolm)).toBe(true);
    }
    expect(result.notes.some((note) => note.includes("undefined for these data"))).toBe(true);
  });
});
