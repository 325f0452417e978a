import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import { buildLeaderboard, ECS_NOT_JUDGED, leaderboardRows, renderLeaderboard } from "./leaderboard.js";

function record(condition: string, index: number, emotion: number, overrides: Partial<DialogueRecord> = {}): DialogueRecord {
  return {
    id: `${condition}/s-${index}/0`,
    condition,
    scenarioId: `s-${index}`,
    type: "cooperative",
    repeat: 0,
    seed: 0,
    status: "done",
    endReason: emotion >= 100 ? "success" : emotion < 10 ? "collapse" : "max_turns",
    preset: "sage",
    manipulationTurn: 0,
    opening: { text: "你好", emotion: 40 },
    turns: [],
    final: { emotion, fs: emotion / 100 },
    ...overrides,
  };
}

describe("leaderboard", () => {
  const records = [record("a", 1, 100), record("a", 2, 5), record("a", 3, 60), record("b", 1, 100), record("b", 2, 100), record("b", 3, 0, { status: "error", endReason: "error" })];

  it("counts SAGE's Sentient score, successes and failures beside FS and collapse, errors left out", () => {
    const [a, b] = leaderboardRows(records, "dir");
    expect(a).toMatchObject({ condition: "a", dialogues: 3, errors: 0, successes: 1, failures: 1, ecs: null });
    expect(a?.sentient).toBeCloseTo(55, 10);
    expect(a?.fs).toBeCloseTo(0.55, 10);
    expect(a?.collapseRate).toBeCloseTo(1 / 3, 10);
    expect(b).toMatchObject({ condition: "b", dialogues: 2, errors: 1, sentient: 100, successes: 2, failures: 0, collapseRate: 0 });
  });

  it("puts the best Sentient score first and tells apart conditions of the same name from different sources", async () => {
    const rows = await buildLeaderboard([
      { source: "run-1", records, skipped: [] },
      { source: "run-2", records: [record("a", 1, 90)], skipped: [] },
    ]);
    expect(rows.map((row) => row.condition)).toEqual(["b", "a (run-2)", "a (run-1)"]);
  });

  it("renders text, markdown and json, with ECS marked as not judged", async () => {
    const rows = await buildLeaderboard([{ source: "dir", records, skipped: [] }]);
    const text = renderLeaderboard(rows, "text");
    expect(text).toMatch(/^condition\s+dialogues\s+Sentient\s+successes\s+failures\s+FS\s+collapse\s+ECS/);
    expect(text).toMatch(/\nb\s+2 \(\+1 errors\)\s+100\.00\s+2\s+0\s+1\.000\s+0\.0%\s+n\/a \(no turn judged\)/);
    expect(text).toMatch(/\na\s+3\s+55\.00\s+1\s+1\s+0\.550\s+33\.3%/);
    expect(text).toContain(ECS_NOT_JUDGED);
    expect(text).toContain("else by the offline lexicon judge");
    expect(renderLeaderboard(rows, "markdown")).toContain("| a | 3 | 55.00 | 1 | 1 | 0.550 | 33.3% | n/a (no turn judged) |");
    expect(JSON.parse(renderLeaderboard(rows, "json"))).toEqual(rows);
  });
});
