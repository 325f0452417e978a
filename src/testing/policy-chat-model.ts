/**
 * The mock server's AEB reply policy as an in-memory ChatModel: every role (agent, simulated user,
 * judges) answered at once, without a server or a socket. `aeb run --dry-run` plays a plan with it
 * to see the prompts the run would send.
 */
import type { ChatModel, ChatRequest, ChatResponse, UsageTotals } from "../llm/chat-model.js";
import { aebMockReply } from "./aeb-mock-policy.js";

export function policyChatModel(model: string, role: string): ChatModel {
  let calls = 0;
  return {
    id: model,
    role,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      calls += 1;
      const body: Record<string, unknown> = { model, messages: request.messages };
      if (request.jsonSchema !== undefined)
        body.response_format = { type: "json_schema", json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema } };
      const value = await aebMockReply({ n: calls, model, messages: request.messages, stream: false, body });
      const reply = typeof value === "string" ? { content: value } : value;
      return {
        text: reply.content,
        ...(reply.reasoning !== undefined ? { reasoning: reply.reasoning } : {}),
        usage: { promptTokens: 0, completionTokens: 0 },
        finishReason: reply.finishReason ?? "stop",
        cached: false,
        latencyMs: 0,
        endpoint: "in-memory",
      };
    },
    usage: (): UsageTotals => ({
      model,
      role,
      calls,
      cachedCalls: 0,
      failedCalls: 0,
      requests: 0,
      retries: 0,
      promptTokens: 0,
      completionTokens: 0,
    }),
  };
}
