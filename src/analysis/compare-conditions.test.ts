import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import { dialogueRow, type DialogueRow } from "../metrics/dialogue-row.js";
import { holmAdjust } from "../stats/holm.js";
import { mannWhitneyU } from "../stats/mann-whitney.js";
import { wilcoxonSignedRank } from "../stats/wilcoxon.js";
import { compareConditions, matchScenarioMeans } from "./compare-conditions.js";

function record(condition: string, scenarioId: string, repeat: number, emotion: number, endReason: DialogueRecord["endReason"] = "max_turns", chars = 100): DialogueRow {
  return dialogueRow({
    id: `${condition}/${scenarioId}/${repeat}`, condition, scenarioId, type: "escalation", repeat, seed: 1, status: "done", endReason, preset: "aeb", manipulationTurn: 1,
    opening: { text: "x", emotion: 50 },
    turns: [{ index: 1, agent: { text: "a".repeat(chars), chars }, user: { text: "u", emotion, delta: 0, simulatorDelta: 0, adjustments: [], flags: [], hid: emotion > 50 ? "yes" : "no" } }],
    final: { emotion, fs: emotion / 100 },
  });
}

const fs = (r: DialogueRow) => r.metrics.fs;

describe("compareConditions", () => {
  const records = [
    ...[60, 70, 80, 90].flatMap((e, i) => [record("good", `s${i}`, 0, e, "max_turns", 100 + i), record("good", `s${i}`, 1, e - 5, "max_turns", 90 + i)]),
    ...[20, 30, 50, 40].flatMap((e, i) => [record("poor", `s${i}`, 0, e, i === 0 ? "collapse" : "max_turns", 80 + i), record("poor", `s${i}`, 1, e + 5, "collapse", 70 + i)]),
    record("third", "s0", 0, 55),
  ];
  const result = compareConditions(records, ["good", "poor", "third"], { fs });

  it("runs the paper's Mann-Whitney over dialogues, as the stats module computes it", () => {
    const row = result.comparisons.find((c) => c.test === "mannwhitney" && c.a === "good" && c.b === "poor")!;
    const direct = mannWhitneyU(records.filter((r) => r.condition === "good").map(fs), records.filter((r) => r.condition === "poor").map(fs));
    expect(row).toMatchObject({ metric: "fs", n: 16, p: direct.p, r: direct.rankBiserial });
    expect(row.r).toBeLessThan(0); // the first condition (good) is higher
  });

  it("runs Wilcoxon on per-scenario means of the scenarios both ran", () => {
    const matched = matchScenarioMeans(records.filter((r) => r.condition === "good"), records.filter((r) => r.condition === "poor"), fs);
    expect(matched.scenarios).toEqual(["s0", "s1", "s2", "s3"]);
    expect(matched.a[0]).toBeCloseTo(0.575, 12);
    const row = result.comparisons.find((c) => c.test === "wilcoxon" && c.a === "good" && c.b === "poor")!;
    expect(row.p).toBe(wilcoxonSignedRank(matched.a, matched.b).p);
    expect(row.n).toBe(4);
  });

  it("applies Holm within each metric and test", () => {
    const family = result.comparisons.filter((c) => c.metric === "fs" && c.test === "mannwhitney");
    expect(family.map((c) => c.pHolm)).toEqual(holmAdjust(family.map((c) => c.p)));
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

describe("compareConditions on degenerate data", () => {
  it("notes an undefined test instead of reporting a NaN p-value", () => {
    const flat = [...Array.from({ length: 20 }, (_, i) => record("a", `s${i}`, 0, 50)), ...Array.from({ length: 20 }, (_, i) => record("b", `s${i}`, 0, 50))];
    const result = compareConditions(flat, ["a", "b"], { fs });
    for (const row of result.comparisons) {
      expect(Number.isFinite(row.p)).toBe(true);
      expect(Number.isFinite(row.pHolm)).toBe(true);
    }
    expect(result.notes.some((note) => note.includes("undefined for these data"))).toBe(true);
  });
});
