import { describe, expect, it } from "vitest";
import { scriptedChatModel } from "../testing/scripted-chat-model.js";
import { LlmAgent } from "./llm-agent.js";

function model(text: string, reasoning?: string) {
  return scriptedChatModel(() => ({ text, ...(reasoning ? { reasoning } : {}) }), { id: "m", role: "agent" });
}
const input = {
  history: [{ role: "user" as const, content: "I got promoted and I'm terrified." }],
  language: "en" as const,
  turnIndex: 0,
  seed: 1,
  dialogueId: "d",
};

describe("LlmAgent", () => {
  it("gives a think condition the think-then-reply prompt and keeps the reasoning off the visible reply", async () => {
    const chat = model("<think>fear behind success</think>Good news can be frightening.");
    const reply = await new LlmAgent(chat, { think: true }).reply(input);
    expect(chat.calls[0]!.messages[0]!.content).toContain("<think>");
    expect(reply).toEqual({ text: "Good news can be frightening.", think: "fear behind success" });
    expect(chat.calls[0]!.sampleKey).toBe("d#turn0#agent");
  });

  it("uses the server's separate reasoning field where it returns one", async () => {
    expect(await new LlmAgent(model("Good news can be frightening.", "fear behind success"), { think: true }).reply(input)).toEqual({
      text: "Good news can be frightening.",
      think: "fear behind success",
    });
  });

  it("flags a missing think block without failing", async () => {
    expect(await new LlmAgent(model("Congratulations!"), { think: true }).reply(input)).toMatchObject({
      text: "Congratulations!",
      flags: ["think_format", "think_format:missing"],
    });
  });

  it("gives a direct condition the direct prompt", async () => {
    const chat = model("That sounds frightening.");
    expect(await new LlmAgent(chat, { think: false }).reply(input)).toEqual({ text: "That sounds frightening." });
    expect(chat.calls[0]!.messages[0]!.content).not.toContain("<think>");
  });
});
