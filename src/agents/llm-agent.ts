import { deriveSeed } from "../core/random.js";
import type { ChatMessage, ChatModel, ChatResponse } from "../llm/chat-model.js";
import { ModelEmptyCompletionError } from "../llm/errors.js";
import { fillPrompt, loadPromptTemplate } from "../prompts/prompt-templates.js";
import type { Agent, AgentInput, AgentReply } from "./agent.js";
import { splitThink } from "./think-format.js";

export interface LlmAgentOptions {
  /** Think-then-reply format (`<think>...</think>` or the server's reasoning field). */
  think: boolean;
  /** Replaces the built-in system prompt (for both languages). */
  systemPrompt?: string;
  temperature?: number;
  maxTokens?: number;
}

/**
 * An agent under test behind an OpenAI-compatible endpoint. It sees the visible conversation
 * only; with `think`, the reasoning is stored on the turn and never reaches the simulated user.
 */
export class LlmAgent implements Agent {
  readonly id: string;

  constructor(
    private readonly model: ChatModel,
    private readonly options: LlmAgentOptions,
  ) {
    this.id = `llm:${model.id}${options.think ? ":think" : ""}`;
  }

  async reply(input: AgentInput): Promise<AgentReply> {
    const system =
      this.options.systemPrompt ?? fillPrompt(loadPromptTemplate(input.language, this.options.think ? "agent-think" : "agent-direct"), {});
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      ...input.history.map((turn) => ({ role: turn.role, content: turn.content })),
    ];
    let response: ChatResponse;
    try {
      response = await this.model.complete({
        messages,
        temperature: this.options.temperature,
        maxTokens: this.options.maxTokens,
        seed: deriveSeed(input.seed, input.turnIndex, "agent") % 2_147_483_647,
        sampleKey: `${input.dialogueId}#turn${input.turnIndex}#agent`,
        signal: input.signal,
      });
    } catch (error) {
      // A completion with no text at all (after the client's own retry) is the model saying nothing:
      // an empty visible reply, scored and penalised by the episode step like a think-only completion,
      // not an error that would leave the turn out (docs/models.md).
      if (ModelEmptyCompletionError.isInstance(error)) return { text: "" };
      throw error;
    }
    const hasTags = response.text.includes("<think>") || response.text.includes("</think>");
    if (!this.options.think) {
      // A direct condition that still emits reasoning: keep it aside, show only the reply.
      if (!hasTags) return { text: response.text.trim(), ...(response.reasoning ? { think: response.reasoning } : {}) };
      const split = splitThink(response.text);
      return { text: split.visible, ...(split.think !== undefined ? { think: split.think } : {}) };
    }
    if (response.reasoning !== undefined && response.reasoning.trim() !== "" && !hasTags) {
      return { text: response.text.trim(), think: response.reasoning.trim() };
    }
    const split = splitThink(response.text);
    return {
      text: split.visible,
      ...(split.think !== undefined ? { think: split.think } : {}),
      ...(split.violation !== undefined ? { flags: ["think_format", `think_format:${split.violation}`] } : {}),
    };
  }
}
