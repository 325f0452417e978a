/**
 * The whole layer in one example: start a mock endpoint, preflight it, build
 * a client with a cache, and make a structured call the way a simulated-user
 * role would.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createOpenAIChatModel, createResponseCache, probe, type ChatModel } from "./index.js";
import { startMockLlmServer } from "../testing/index.js";

it("runs a simulated-user turn end to end against the mock server", async () => {
  const server = await startMockLlmServer({
    models: ["user-sim-8b"],
    reply: (request) => JSON.stringify({ utterance: "Whatever.", turn: request.n }),
  });
  const dir = await mkdtemp(join(tmpdir(), "aeb-llm-example-"));
  try {
    const config = { baseUrl: server.url, model: "user-sim-8b", temperature: 0.8, seed: 7 };
    await probe(config); // throws a ModelProbeError naming the endpoint if anything is off

    const userSim: ChatModel = createOpenAIChatModel(config, {
      role: "user-sim",
      cache: createResponseCache({ dir }),
    });
    const reply = await userSim.complete({
      messages: [
        { role: "system", content: "You are a user who does not cooperate." },
        { role: "user", content: "How can I help you today?" },
      ],
      jsonSchema: {
        name: "user_turn",
        schema: { type: "object", properties: { utterance: { type: "string" } }, required: ["utterance"] },
      },
      sampleKey: "dialogue-17/turn-1/user-sim",
    });

    expect(JSON.parse(reply.text)).toEqual({ utterance: "Whatever.", turn: 1 });
    expect(userSim.usage()).toMatchObject({ role: "user-sim", calls: 1, cachedCalls: 0 });
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
