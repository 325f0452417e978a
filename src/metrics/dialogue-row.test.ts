import { describe, expect, it } from "vitest";
import { createReferenceAgent } from "../agents/reference-agents.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { getPreset } from "../core/preset.js";
import { runEpisode } from "../episode/step.js";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import { renderHtmlReport } from "../report/html-report.js";
import { renderMarkdownReport } from "../report/markdown-report.js";
import { transcriptIds } from "../report/report-model.js";
import { judgeRecord } from "../runner/run-benchmark.js";
import { mergeJudgementRows, mergeJudgements, type JudgementLine } from "../runner/judgements.js";
import { summariseRows, summariseRun } from "../runner/summary.js";
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
        const played = await runEpisode({ dialogueId: `${agentId}/${scenario.id}/${repeat}`, condition: agentId, scenario, preset: getPreset(scenario.preset), repeat, seed: 3 + repeat, agent: createReferenceAgent(agentId), user: new OfflineSimulatedUser() });
        records.push(await judgeRecord(played, scenario, { ecs: [{ name: "offline-lexicon", judge: new OfflineEcsJudge() }], hid: [] }));
      }
    }
  }
  const first = records[0] as DialogueRecord;
  records.push({ ...first, id: `${first.condition}/${first.scenarioId}/9`, repeat: 9, status: "error", endReason: "error", error: "model timed out" });
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

  it("gives the summary that the records give, byte for byte", async () => {
    const records = await starterRecords();
    const options = { conditionOrder: ["formulaic", "attuned"], seed: 1, repeats: 2, judges: { ecs: ["offline-lexicon"], hid: [] } };
    const fromRecords = JSON.stringify(summariseRun(records, options));
    expect(JSON.stringify(summariseRows(records.map(dialogueRow), options))).toBe(fromRecords);
    // The order in which rows arrive does not matter either (a resumed run appends in another order).
    expect(JSON.stringify(summariseRows(records.map(dialogueRow).reverse(), options))).toBe(fromRecords);
  });

  it("merges later judgements as the records do (new judges after the old, later lines win)", async () => {
    const records = await starterRecords();
    const judgements: JudgementLine[] = [];
    records.slice(0, 5).forEach((record, index) => {
      judgements.push({ id: record.id, ecs: { "llm-judge": { judge: "llm-judge", score: 0.5 + index / 10, before: 0.6, after: 0.4, drop: 0.2, errors: index === 2 ? ["unreadable"] : [] } } });
      judgements.push({ id: record.id, hid: { "hid-judge": index === 1 ? { judge: "hid-judge", error: "no evidence" } : { judge: "hid-judge", value: index % 2 === 0 ? 1 : 0.5 } } });
      if (index === 3) judgements.push({ id: record.id, ecs: { "offline-lexicon": { judge: "offline-lexicon", score: 0.1, before: null, after: null, drop: null } } });
    });
    const options = { conditionOrder: ["formulaic", "attuned"], seed: 7, repeats: 2 };
    const merged = mergeJudgements(records, judgements);
    expect(JSON.stringify(summariseRows(mergeJudgementRows(records.map(dialogueRow), judgements), options))).toBe(JSON.stringify(summariseRun(merged, options)));
    expect(mergeJudgementRows(records.map(dialogueRow), judgements)).toEqual(merged.map(dialogueRow));
  });

  it("gives the reports that the records give, with only the worst dialogues' records", async () => {
    const records = await starterRecords();
    const summary = summariseRun(records, { conditionOrder: ["formulaic", "attuned"], seed: 1, repeats: 2, judges: { ecs: ["offline-lexicon"], hid: [] } });
    const rows = records.map(dialogueRow);
    const ids = transcriptIds(summary, rows);
    expect(ids.size).toBe(6);
    const transcripts = new Map(records.filter((record) => ids.has(record.id)).map((record) => [record.id, record]));
    const fromRows = { summary, rows, transcripts, setup: { conditions: [{ name: "formulaic" }, { name: "attuned" }] } };
    const fromRecords = { summary, records, setup: fromRows.setup };
    expect(renderMarkdownReport(fromRows)).toBe(renderMarkdownReport(fromRecords));
    expect(await renderHtmlReport(fromRows)).toBe(await renderHtmlReport(fromRecords));
    await expect(renderHtmlReport({ ...fromRows, transcripts: new Map() })).rejects.toThrow(/was not provided/);
  });
});
