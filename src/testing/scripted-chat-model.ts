/**
 * A chat model that answers from a script and records every request, for tests and examples that
 * need a model without a server: an agent, a simulated user or a judge whose answers are fixed.
 */
import type { ChatModel, ChatRequest, ChatResponse, UsageTotals } from "../llm/chat-model.js";

/** What the script answers: a list (the n-th call gets the n-th answer, the last one repeats) or a function of the request. */
export type ChatScript = readonly string[] | ((request: ChatRequest, callIndex: number) => string | { text: string; reasoning?: string });

export interface ScriptedChatModel extends ChatModel {
  /** Every request received, oldest first. */
  readonly calls: ChatRequest[];
}

export function scriptedChatModel(script: ChatScript, options: { id?: string; role?: string } = {}): ScriptedChatModel {
  const id = options.id ?? "scripted";
  const role = options.role ?? "simulator";
  const calls: ChatRequest[] = [];
  return {
    id,
    role,
    calls,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      calls.push(request);
      const index = calls.length - 1;
      const answer = typeof script === "function" ? script(request, index) : (script[Math.min(index, script.length - 1)] as string);
      const { text, reasoning } = typeof answer === "string" ? { text: answer, reasoning: undefined } : answer;
      return {
        text,
        ...(reasoning !== undefined ? { reasoning } : {}),
        usage: { promptTokens: 0, completionTokens: 0 },
        finishReason: "stop",
        cached: false,
        latencyMs: 0,
        endpoint: "scripted",
      };
    },
    usage: (): UsageTotals => ({
      model: id,
      role,
      calls: calls.length,
      cachedCalls: 0,
      failedCalls: 0,
      requests: calls.length,
      retries: 0,
      promptTokens: 0,
      completionTokens: 0,
    }),
  };
}
