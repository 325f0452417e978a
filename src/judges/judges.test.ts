import { describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/chat-model.js";
import { evidenceOccurs, judgeEcs, judgeHid, visibleUpTo } from "./apply-judge.js";
import type { EcsJudge } from "./judge.js";
import { LlmEcsJudge, LlmHidJudge } from "./llm-judges.js";
import { OfflineEcsJudge } from "./offline-ecs-judge.js";

const turn = (index: number, agent: string, user: string, emotion: number) => ({
  index,
  agent: { text: agent, chars: agent.length },
  user: { text: user, emotion, delta: 0, simulatorDelta: 0, adjustments: [], flags: [] },
});
const record: DialogueRecord = {
  id: "c/s/0",
  condition: "c",
  scenarioId: "s",
  type: "escalation",
  repeat: 0,
  seed: 1,
  status: "done",
  endReason: "max_turns",
  preset: "aeb",
  manipulationTurn: 1,
  opening: { text: "They blamed me for the audit.", emotion: 50 },
  turns: [
    turn(0, "That was unfair.", "Thank you. Finally.", 58),
    turn(1, "You didn't deserve it.", "I'm still furious.", 60),
    turn(2, "Take your time.", "Thanks, that helps.", 70),
  ],
  final: { emotion: 70, fs: 0.7 },
};

describe("what judges see", () => {
  it("shows the ECS judge the conversation up to and including reply t, never the user's answer to it", () => {
    expect(visibleUpTo(record, 1)).toEqual([
      { role: "user", content: "They blamed me for the audit." },
      { role: "assistant", content: "That was unfair." },
      { role: "user", content: "Thank you. Finally." },
      { role: "assistant", content: "You didn't deserve it." },
    ]);
  });

  it("records an unreadable estimate as a judge error that excludes the turn", async () => {
    let calls = 0;
    const flaky: EcsJudge = {
      id: "flaky",
      async estimate() {
        calls += 1;
        if (calls === 2) throw new Error("judge answered nonsense");
        return { predicted: 60, confidence: 100 };
      },
    };
    const result = await judgeEcs(record, flaky, "en");
    expect(result.estimates.map((estimate) => estimate.index)).toEqual([0, 2]);
    expect(result.errors).toEqual([{ index: 1, error: "judge answered nonsense" }]);
    expect(result.score).toBeCloseTo(1 - (0.02 + 0.1) / 2, 12); // |60-58| and |60-70| at full confidence

    // A rerun asks the judge again about the failed turn only, and keeps what it judged before.
    const asked: number[] = [];
    const recovered: EcsJudge = {
      id: "flaky",
      async estimate(input) {
        asked.push(input.turnIndex);
        return { predicted: 50, confidence: 100 };
      },
    };
    const retried = await judgeEcs(record, recovered, "en", undefined, result);
    expect(asked).toEqual([1]);
    expect(retried.estimates.map((estimate) => [estimate.index, estimate.predicted])).toEqual([
      [0, 60],
      [1, 50],
      [2, 60],
    ]);
    expect(retried.errors).toEqual([]);
  });

  it("with unreadableTurn impute-50, scores an unreadable turn p=50, c=0 as the AEB paper did, and counts it", async () => {
    let calls = 0;
    const flaky: EcsJudge = {
      id: "flaky",
      unreadableTurn: "impute-50",
      async estimate() {
        calls += 1;
        if (calls === 2) throw new Error("judge answered nonsense");
        return { predicted: 60, confidence: 100 };
      },
    };
    const result = await judgeEcs(record, flaky, "en");
    expect(result.estimates[1]).toEqual({ index: 1, predicted: 50, confidence: 0, actual: 60, imputed: true });
    expect(result.errors).toEqual([{ index: 1, error: "judge answered nonsense" }]);
    expect(result).toMatchObject({ unreadableTurn: "impute-50", imputed: 1, turns: 3 });
    // |60-58| and |60-70| at full confidence, |50-60| at confidence 0 (half weight).
    expect(result.score).toBeCloseTo(1 - (0.02 + 0.05 + 0.1) / 3, 12);
    const excluded = await judgeEcs(
      record,
      { ...flaky, unreadableTurn: "exclude", estimate: async () => ({ predicted: 60, confidence: 100 }) },
      "en",
    );
    expect(excluded).toMatchObject({ unreadableTurn: "exclude", imputed: 0 });
  });

  it("asks with the paper's anchors when the LLM judge is configured with prompt aeb-paper, and imputes what it cannot read", async () => {
    const requests: ChatRequest[] = [];
    const chat: ChatModel = {
      id: "mistral",
      role: "judge",
      async complete(request) {
        requests.push(request);
        return {
          text: requests.length === 1 ? '{"reasoning": "calm", "emotion": 55, "confidence": 40}' : "I think they are fine.",
          usage: { promptTokens: 0, completionTokens: 0 },
          finishReason: "stop",
          cached: false,
          latencyMs: 0,
          endpoint: "x",
        };
      },
      usage: () => ({
        model: "mistral",
        role: "judge",
        calls: 0,
        cachedCalls: 0,
        failedCalls: 0,
        requests: 0,
        retries: 0,
        promptTokens: 0,
        completionTokens: 0,
      }),
    };
    const judge = new LlmEcsJudge(chat, 0, { prompt: "aeb-paper", unreadableTurn: "impute-50" });
    expect(judge.id).toBe("llm-ecs:mistral:aeb-paper");
    const result = await judgeEcs(record, judge, "en");
    expect(requests[0]!.messages[0]!.content).toContain("0 = devastated or hostile, 50 = neutral, 100 = very satisfied");
    expect(result.estimates.map((estimate) => [estimate.predicted, estimate.imputed === true])).toEqual([
      [55, false],
      [50, true],
      [50, true],
    ]);
    expect(result.imputed).toBe(2);
    expect(result.errors.map((error) => error.index)).toEqual([1, 2]);
    expect(result.errors[0]!.error).toContain("no JSON object found");
  });

  it("asks the project's ECS judge with one system message for every turn and the conversation alone after it, each turn's prompt extending the last", async () => {
    const requests: ChatRequest[] = [];
    const chat: ChatModel = {
      id: "judge",
      role: "judge",
      async complete(request) {
        requests.push(request);
        return {
          text: '{"reasoning": "calm", "emotion": 55, "confidence": 40}',
          usage: { promptTokens: 0, completionTokens: 0 },
          finishReason: "stop",
          cached: false,
          latencyMs: 0,
          endpoint: "x",
        };
      },
      usage: () => ({
        model: "judge",
        role: "judge",
        calls: 0,
        cachedCalls: 0,
        failedCalls: 0,
        requests: 0,
        retries: 0,
        promptTokens: 0,
        completionTokens: 0,
      }),
    };
    await judgeEcs(record, new LlmEcsJudge(chat), "en");
    expect(requests).toHaveLength(3);
    const systems = new Set(requests.map((request) => request.messages[0]!.content));
    expect(systems.size).toBe(1);
    expect([...systems][0]).toContain("from 0 (at breaking point");
    for (let index = 1; index < requests.length; index += 1) {
      const before = requests[index - 1]!.messages[1]!.content;
      expect(requests[index]!.messages[1]!.content.startsWith(before.slice(0, before.lastIndexOf("\n]")))).toBe(true);
    }
    expect(requests[2]!.messages[1]!.content).toContain('"text": "Take your time."');
  });

  it("predicts lower emotion from distressed words with the offline lexicon judge", async () => {
    const judge = new OfflineEcsJudge();
    const low = await judge.estimate({
      visible: [{ role: "user", content: "I'm devastated and furious, it's hopeless." }],
      turnIndex: 0,
      language: "en",
      dialogueId: "x",
    });
    const high = await judge.estimate({
      visible: [{ role: "user", content: "Thank you, that really helped. I feel better." }],
      turnIndex: 0,
      language: "en",
      dialogueId: "x",
    });
    const zh = await judge.estimate({
      visible: [{ role: "user", content: "我真的很崩溃，太绝望了。" }],
      turnIndex: 0,
      language: "zh",
      dialogueId: "x",
    });
    expect(low.predicted).toBeLessThan(40);
    expect(high.predicted).toBeGreaterThan(60);
    expect(zh.predicted).toBeLessThan(40);
  });
});

describe("HID judge evidence", () => {
  it("must quote an agent reply verbatim", () => {
    const visible = visibleUpTo(record, 2);
    expect(evidenceOccurs("“that was unfair”", visible)).toBe(true);
    expect(evidenceOccurs("They blamed me", visible)).toBe(false); // the user's words, not the agent's
    expect(evidenceOccurs("It was all their fault", visible)).toBe(false);
  });

  it("turns a verdict whose evidence is not in the transcript into a judge error", async () => {
    const model: ChatModel = {
      id: "judge",
      role: "judge",
      async complete(_request: ChatRequest): Promise<ChatResponse> {
        return {
          text: JSON.stringify({ reasoning: "r", verdict: "yes", turn: 0, evidence: "I completely agree with you" }),
          usage: { promptTokens: 0, completionTokens: 0 },
          finishReason: "stop",
          cached: false,
          latencyMs: 0,
          endpoint: "x",
        };
      },
      usage: () => ({
        model: "judge",
        role: "judge",
        calls: 0,
        cachedCalls: 0,
        failedCalls: 0,
        requests: 0,
        retries: 0,
        promptTokens: 0,
        completionTokens: 0,
      }),
    };
    const result = await judgeHid(record, new LlmHidJudge(model), "wants the unfairness named", "en");
    expect(result.verdict).toBeUndefined();
    expect(result.error).toMatch(/evidence not found in the transcript/);
  });
});
