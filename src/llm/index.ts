/**
 * `aeb/llm`: the model-client layer. Roles depend on {@link ChatModel}; runners
 * build clients with {@link createOpenAIChatModel} and preflight them with
 * {@link probe}. The mock OpenAI-compatible server that tests and dry runs point
 * them at is in `aeb/testing` (src/testing/).
 */
export type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelCallEvent, UsageTotals } from "./chat-model.js";
export {
  ModelAbortedError,
  ModelCallError,
  ModelConfigError,
  ModelConnectionError,
  ModelEmptyCompletionError,
  ModelHttpError,
  ModelIncompleteStreamError,
  ModelProbeError,
  ModelResponseError,
  ModelTimeoutError,
  type ModelCallErrorKind,
  type ProbeFailure,
} from "./errors.js";
export { ModelEndpointConfig, parseModelEndpointConfig, type ModelEndpointConfigInput } from "./endpoint-config.js";
export { createOpenAIChatModel, OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
export { probe, type ProbeOptions, type ProbeResult } from "./endpoint-probe.js";
export {
  createResponseCache,
  ResponseCache,
  responseCacheKey,
  RESPONSE_CACHE_FORMAT,
  type CachedCompletion,
  type ResponseCacheKeyParts,
  type ResponseCacheOptions,
} from "./response-cache.js";
export { isRetryableStatus, parseRetryAfterMs } from "./retry-policy.js";
export { displayEndpoint, redactSecrets } from "./redaction.js";
export { PLACEHOLDER_API_KEY, type FetchFn } from "./sdk-client.js";
export type { Clock, RandomFn, SleepFn } from "./clock.js";
