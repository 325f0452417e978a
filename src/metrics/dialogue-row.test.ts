import { describe, expect, it } from "vitest";
import { savedSummary } from "../record/summary-file.js";
import { createReferenceAgent } from "../agents/reference-agents.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { getPreset } from "../core/preset.js";
import { runEpisode } from "../episode/step.js";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import { summariseRun } from "../analysis/run-summary.js";
import { withJudgements, type FoldedJudgements } from "../record/judgements.js";
import { renderHtmlReport } from "../report/html-report.js";
import { renderMarkdownReport } from "../report/markdown-report.js";
import { reportInputOfRecords, transcriptIds } from "../report/report-model.js";
import { judgeDialogue, withNewJudgements } from "../runner/dialogue-judgements.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import { dialogueRow } from "./dialogue-row.js";

/** Starter-suite dialogues of two reference agents, judged by the offline ECS judge, plus one errored dialogue. */
async function starterRecords(): Promise<DialogueRecord[]> {
  const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).filter((scenario) => scenario.suite === "starter");
  const records: DialogueRecord[] = [];
  for (const scenario of scenarios) {
    for (const agentId of ["formulaic", "attuned"]) {
      for (const repeat of [0, 1]) {
        const played = await runEpisode({
          dialogueId: `${agentId}/${scenario.id}/${repeat}`,
          condition: agentId,
          scenario,
          preset: getPreset(scenario.preset),
          repeat,
          seed: 3 + repeat,
          agent: createReferenceAgent(agentId),
          user: new OfflineSimulatedUser(),
        });
        records.push(
          withNewJudgements(
            played,
            await judgeDialogue(played, scenario, { ecs: [{ name: "offline-lexicon", judge: new OfflineEcsJudge() }], hid: [] }),
          ),
        );
      }
    }
  }
  const first = records[0] as DialogueRecord;
  records.push({
    ...first,
    id: `${first.condition}/${first.scenarioId}/9`,
    repeat: 9,
    status: "error",
    endReason: "error",
    error: { kind: "timeout", stage: "agent" as const, message: "model timed out", retryable: true },
  });
  return records;
}

describe("DialogueRow", () => {
  it("keeps no text: no transcript, no think, no appraisal, no judge estimates", async () => {
    const records = await starterRecords();
    const row = dialogueRow(records[0] as DialogueRecord);
    const text = JSON.stringify(row);
    expect(text).not.toContain((records[0] as DialogueRecord).opening.text);
    expect(text).not.toContain((records[0] as DialogueRecord).turns[0]!.agent.text);
    expect(text).not.toContain("appraisal");
    expect(text).not.toContain("estimates");
    expect(row.emotions).toEqual([records[0]!.opening.emotion, ...records[0]!.turns.map((turn) => turn.user.emotion)]);
  });

  it("gives a summary that does not depend on the order the dialogues finished in", async () => {
    const records = await starterRecords();
    const options = { conditionOrder: ["formulaic", "attuned"], seed: 1, repeats: 2, judges: { ecs: ["offline-lexicon"], hid: [] } };
    const inOrder = JSON.stringify(summariseRun(records.map(dialogueRow), options));
    // A resumed run appends in another order.
    expect(JSON.stringify(summariseRun(records.map(dialogueRow).reverse(), options))).toBe(inOrder);
  });

  it("carries later judgements laid over the record (new judges after the old, later ones win)", async () => {
    const records = await starterRecords();
    const judgements = new Map<string, FoldedJudgements>();
    records.slice(0, 5).forEach((record, index) => {
      judgements.set(record.id, {
        ecs: {
          "llm-judge": {
            judge: "llm-judge",
            score: 0.5 + index / 10,
            before: 0.6,
            after: 0.4,
            drop: 0.2,
            errors: index === 2 ? [{ index: 0, error: "unreadable" }] : [],
          },
          ...(index === 3 ? { "offline-lexicon": { judge: "offline-lexicon", score: 0.1, before: null, after: null, drop: null } } : {}),
        },
        hid: {
          "hid-judge":
            index === 1 ? { judge: "hid-judge", error: "no evidence" } : { judge: "hid-judge", value: index % 2 === 0 ? 1 : 0.5 },
        },
      });
    });
    const rows = records.map((record) => dialogueRow(withJudgements(record, judgements)));
    expect(Object.keys(rows[3]!.ecs)).toEqual(["offline-lexicon", "llm-judge"]);
    expect(rows[3]!.ecs["offline-lexicon"]!.score).toBe(0.1);
    expect(rows[2]!.ecs["llm-judge"]).toMatchObject({ score: 0.7, errors: 1 });
    expect(rows[1]!.hid["hid-judge"]).toEqual({ value: null, error: true });
    expect(rows[7]!.ecs["llm-judge"]).toBeUndefined();
    const summary = summariseRun(rows, { conditionOrder: ["formulaic", "attuned"], seed: 7, repeats: 2 });
    // The model judge gives the headline ECS though the lexicon baseline comes first (analysis/ecs-judges.ts).
    expect(summary.judges).toEqual({
      ecs: ["offline-lexicon", "llm-judge"],
      hid: ["hid-judge"],
      headlineEcs: "llm-judge",
      heuristicEcs: { "offline-lexicon": "offline-lexicon" },
    });
  });

  it("gives reports that need only the worst dialogues' records", async () => {
    const records = await starterRecords();
    const summary = summariseRun(records.map(dialogueRow), {
      conditionOrder: ["formulaic", "attuned"],
      seed: 1,
      repeats: 2,
      judges: { ecs: ["offline-lexicon"], hid: [] },
    });
    const input = reportInputOfRecords(savedSummary(summary), records, {
      setup: { conditions: [{ name: "formulaic" }, { name: "attuned" }] },
    });
    expect(transcriptIds(summary, input.rows).size).toBe(6);
    expect(input.transcripts.size).toBe(6);
    const markdown = renderMarkdownReport(input);
    for (const record of input.transcripts.values()) expect(markdown).toContain(record.id);
    expect(await renderHtmlReport({ ...input, rows: [...input.rows].reverse() })).toBe(await renderHtmlReport(input));
    await expect(renderHtmlReport({ ...input, transcripts: new Map() })).rejects.toThrow(/was not provided/);
  });
});
