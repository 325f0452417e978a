/**
 * Turning a {@link ChatRequest} plus endpoint config into the JSON body sent
 * to `/chat/completions`. This is THE place for provider quirks.
 *
 * Why one function: servers differ in small ways (which structured-output
 * mode they accept, extra sampling knobs such as `top_k`, chat-template
 * switches such as `enable_thinking`). Keeping the mapping in one pure
 * function makes each quirk a visible, unit-tested edit, and the same
 * "effective parameters" feed the cache key, so whatever changes the body
 * also changes the key.
 */
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ChatRequest } from "./chat-model.js";
import type { ModelEndpointConfig } from "./endpoint-config.js";

/** Request-level values after applying config defaults; also part of the cache key. */
export interface EffectiveParams {
  temperature?: number | undefined;
  topP?: number | undefined;
  maxTokens?: number | undefined;
  seed?: number | undefined;
  stop?: string[] | undefined;
  /** Only meaningful when the request has a jsonSchema. */
  structuredOutput?: ModelEndpointConfig["structuredOutput"] | undefined;
  extraBody?: Record<string, unknown> | undefined;
}

/** Per-request overrides win over config defaults; unset stays unset (server default). */
export function effectiveParams(config: ModelEndpointConfig, request: ChatRequest): EffectiveParams {
  return {
    temperature: request.temperature ?? config.temperature,
    topP: request.topP ?? config.topP,
    maxTokens: request.maxTokens ?? config.maxTokens,
    seed: request.seed ?? config.seed,
    stop: request.stop !== undefined && request.stop.length > 0 ? request.stop : undefined,
    structuredOutput: request.jsonSchema !== undefined ? config.structuredOutput : undefined,
    extraBody: config.extraBody,
  };
}

/**
 * The request body (streamed or not, as the config says). `extraBody` is spread first: it can add any
 * field, but typed settings (sampling, response_format) win over same-named
 * extraBody entries, and it can never replace the model, the messages or the
 * streaming switches the client depends on.
 */
export function buildChatCompletionBody(
  config: ModelEndpointConfig,
  request: ChatRequest,
  params: EffectiveParams = effectiveParams(config, request),
): ChatCompletionCreateParamsStreaming | ChatCompletionCreateParamsNonStreaming {
  const body: Record<string, unknown> = {};
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  // `max_tokens` is what vLLM, SGLang and Ollama read. OpenAI reasoning models want
  // `max_completion_tokens` instead: leave maxTokens unset and pass it via extraBody.
  if (params.maxTokens !== undefined) body.max_tokens = params.maxTokens;
  if (params.seed !== undefined) body.seed = params.seed;
  if (params.stop !== undefined) body.stop = params.stop;
  if (request.jsonSchema !== undefined) {
    if (params.structuredOutput === "json_schema") {
      body.response_format = {
        type: "json_schema",
        json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true },
      };
    } else if (params.structuredOutput === "json_object") {
      body.response_format = { type: "json_object" };
    }
  }
  // stream_options is only valid on streamed requests (OpenAI rejects it otherwise), so an
  // extraBody copy of it never reaches a plain one.
  const { stream_options: _ignored, ...extra } = params.extraBody ?? {};
  return {
    ...(config.stream ? (params.extraBody ?? {}) : extra),
    ...body,
    model: config.model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    ...(config.stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
  } as ChatCompletionCreateParamsStreaming | ChatCompletionCreateParamsNonStreaming;
}
