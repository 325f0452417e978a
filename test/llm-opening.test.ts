/**
 * The LLM simulated user, built as a run builds it, writes the opening of a profile without
 * `first_talk` (as RLVER's simulator does), over the mock OpenAI-compatible server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { getPreset } from "../src/core/preset.js";
import { startEpisode } from "../src/episode/step.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { PluginFactory } from "../src/runner/plugins.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { profileToScenario } from "../src/scenarios/sage-profiles.js";
import { ScenarioSchema } from "../src/scenarios/scenario-schema.js";

const servers: MockLlmServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

describe("an LLM simulated user opens a profile that has no first_talk", () => {
  it("asks for the opening once, in the scenario's language, at the preset's start", async () => {
    const server = await startMockLlmServer({ models: ["sim"], reply: aebMockReply });
    servers.push(server);
    const scenario = ScenarioSchema.parse(
      profileToScenario(
        { id: "a", player: "* 姓名：李明", scene: "李明最近和同事闹了矛盾。", task: "你希望对方用心倾听你的情绪宣泄" },
        "rlver",
      ),
    );
    const endpoint = { baseUrl: server.url, model: "sim", maxRetries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 5, timeoutMs: 5000 };
    const user = new PluginFactory({}).simulatedUser(
      parseRunConfig({ simulator: { kind: "llm", endpoint, maxOutputRetries: 1 } }, "test").simulator,
    );
    const state = await startEpisode(scenario, getPreset("rlver"), 2, { user, dialogueId: "attuned/rlver-a/0" });
    expect(state).toMatchObject({ emotion: 30, turnIndex: 0, done: false });
    expect(["最近有件事一直让我心里不舒服。", "唉，这几天过得挺糟的。"]).toContain(state.history[0]?.content);
    const openings = server.chatRequests().filter((request) => JSON.stringify(request.body).includes("aeb_simulator_opening"));
    expect(openings).toHaveLength(1);
    expect(JSON.stringify(openings[0]!.body)).toContain("你的第一条消息");
  });
});
