import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import { buildLeaderboard, ECS_NOT_JUDGED, leaderboardRows, renderLeaderboard, type LeaderboardSource } from "./leaderboard.js";

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

/** One ECS judgement as judges/apply-judge.ts records it (estimates left out). */
function ecs(judge: string, score: number): NonNullable<DialogueRecord["ecs"]>[string] {
  return { judge, score, before: null, after: null, drop: null };
}

const source = (name: string, records: DialogueRecord[], simulatedUser: string): LeaderboardSource => ({
  source: name,
  records,
  skipped: [],
  simulatedUser: () => simulatedUser,
});

describe("leaderboard", () => {
  const records = [
    record("a", 1, 100),
    record("a", 2, 5),
    record("a", 3, 60),
    record("b", 1, 100),
    record("b", 2, 100),
    record("b", 3, 0, { status: "error", endReason: "error" }),
  ];

  it("counts SAGE's Sentient score, successes and failures beside FS and collapse, errors left out", () => {
    const [a, b] = leaderboardRows(records, "dir");
    expect(a).toMatchObject({
      condition: "a",
      dialogues: 3,
      errors: 0,
      successes: 1,
      failures: 1,
      ecs: null,
      ecsJudge: null,
      heuristicEcsOnly: false,
    });
    expect(a?.sentient).toBeCloseTo(55, 10);
    expect(a?.fs).toBeCloseTo(0.55, 10);
    expect(a?.collapseRate).toBeCloseTo(1 / 3, 10);
    expect(b).toMatchObject({ condition: "b", dialogues: 2, errors: 1, sentient: 100, successes: 2, failures: 0, collapseRate: 0 });
  });

  it("ranks within each simulated user only, restarting at 1, and tells apart a name that repeats within one", () => {
    const rows = buildLeaderboard([
      source("run-1", records, "deepseek-v3"),
      source("run-2", [record("a", 1, 90)], "deepseek-v3"),
      source("offline-run", [record("a", 1, 99), record("c", 1, 20)], "offline"),
    ]);
    expect(rows.map((row) => [row.simulatedUser, row.rank, row.condition])).toEqual([
      ["deepseek-v3", 1, "b"],
      ["deepseek-v3", 2, "a (run-2)"],
      ["deepseek-v3", 3, "a (run-1)"],
      // The offline user's "a" scores 99, above every deepseek-v3 row, and is still ranked only among its own.
      ["offline", 1, "a"],
      ["offline", 2, "c"],
    ]);
    const text = renderLeaderboard(rows, "text");
    expect(text).toContain(
      "2 simulated users (deepseek-v3, offline): each row is ranked only against rows scored by the same simulated user",
    );
  });

  it("ranks a tie equally and skips the next rank (1, 1, 3), saying so under the table", () => {
    const tied = [record("x", 1, 80), record("y", 1, 60), record("y", 2, 100), record("z", 1, 40), record("w", 1, 90), record("w", 2, 70)];
    const rows = buildLeaderboard([source("dir", tied, "offline")]);
    // w and y both average 80, as does x: three rows share first place; z comes fourth.
    expect(rows.map((row) => [row.rank, row.condition])).toEqual([
      [1, "w"],
      [1, "x"],
      [1, "y"],
      [4, "z"],
    ]);
    expect(renderLeaderboard(rows, "text")).toContain("rows with the same Sentient score share a rank, and the next rank skips (1, 1, 3)");
    // Without a tie the note is not there.
    expect(renderLeaderboard(buildLeaderboard([source("dir", records, "offline")]), "text")).not.toContain("share a rank");
    // A tie in one simulated user's group does not touch another's ranks.
    const mixed = buildLeaderboard([
      source("a", [record("p", 1, 50), record("q", 1, 50)], "offline"),
      source("b", [record("r", 1, 50), record("s", 1, 40)], "deepseek-v3"),
    ]);
    expect(mixed.map((row) => [row.simulatedUser, row.rank, row.condition])).toEqual([
      ["offline", 1, "p"],
      ["offline", 1, "q"],
      ["deepseek-v3", 1, "r"],
      ["deepseek-v3", 2, "s"],
    ]);
  });

  it("shows only a model judge's ECS: a heuristic's is n/a (no model judge)", () => {
    const lexiconOnly = [
      record("a", 1, 50, { ecs: { "offline-lexicon": ecs("offline-lexicon", 0.8) } }),
      record("a", 2, 60, { ecs: { "offline-lexicon": ecs("offline-lexicon", 0.9) } }),
    ];
    const [heuristic] = leaderboardRows(lexiconOnly, "dir");
    expect(heuristic).toMatchObject({ ecs: null, ecsJudge: null, heuristicEcsOnly: true });
    // A model judge listed after the lexicon baseline gives the ECS, whatever the order.
    const both = lexiconOnly.map((item, index) => ({ ...item, ecs: { ...item.ecs, judge: ecs("llm-ecs:gemma", 0.4 + index / 10) } }));
    const [model] = leaderboardRows(both, "dir");
    expect(model).toMatchObject({ ecsJudge: "judge", heuristicEcsOnly: false });
    expect(model?.ecs).toBeCloseTo(0.45, 10);
    const text = renderLeaderboard(
      buildLeaderboard([
        source("heuristic", lexiconOnly, "offline"),
        source(
          "model",
          both.map((item) => ({ ...item, condition: "m", id: item.id.replace("a/", "m/") })),
          "offline",
        ),
      ]),
      "text",
    );
    expect(text).toMatch(/\noffline\s+\d\s+a\s+2\s+55\.00\s+0\s+0\s+0\.550\s+0\.0%\s+n\/a \(no model judge\)/);
    expect(text).toMatch(/\noffline\s+\d\s+m\s+2\s+55\.00\s+0\s+0\s+0\.550\s+0\.0%\s+0\.450/);
  });

  it("renders text, markdown and json, with ECS marked as not judged", () => {
    const rows = buildLeaderboard([source("dir", records, "offline")]);
    const text = renderLeaderboard(rows, "text");
    expect(text).toMatch(/^simulated user\s+rank\s+condition\s+dialogues\s+Sentient\s+successes\s+failures\s+FS\s+collapse\s+ECS/);
    expect(text).toMatch(/\noffline\s+1\s+b\s+2 \(\+1 errors\)\s+100\.00\s+2\s+0\s+1\.000\s+0\.0%\s+n\/a \(no ECS judge\)/);
    expect(text).toMatch(/\noffline\s+2\s+a\s+3\s+55\.00\s+1\s+1\s+0\.550\s+33\.3%/);
    expect(text).toContain(ECS_NOT_JUDGED);
    expect(text).toContain("One simulated user (offline)");
    expect(renderLeaderboard(rows, "markdown")).toContain("| offline | 2 | a | 3 | 55.00 | 1 | 1 | 0.550 | 33.3% | n/a (no ECS judge) |");
    expect(JSON.parse(renderLeaderboard(rows, "json"))).toEqual(rows);
  });
});
