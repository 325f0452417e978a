/**
 * `aeb/testing`: AEB's test doubles, for tests (this repository's and a user's), benchmarks and
 * demos; the AI SDK keeps its mocks in `ai/test` the same way. A mock OpenAI-compatible server
 * (with latency and fault injection, and a reply policy that plays every AEB role), in-memory chat
 * models that answer from a script, and a simulated user with a fixed latency. Nothing in src/
 * outside this folder imports it, except the CLI commands that expose a double as a feature
 * (.dependency-cruiser.cjs names them).
 */
export {
  startMockLlmServer,
  type MockChatRequest,
  type MockFault,
  type MockFaultTrigger,
  type MockLatency,
  type MockLlmServer,
  type MockLlmServerOptions,
  type MockRecordedRequest,
  type MockReply,
  type MockReplyObject,
  type MockReplyValue,
} from "./mock-llm-server.js";
export { runMockLlmServer, loadMockScript, MockScriptSchema, type MockLlmCliOptions, type MockScript } from "./mock-llm-cli.js";
export { aebMockReply } from "./aeb-mock-policy.js";
export { scriptedChatModel, type ChatScript, type ScriptedChatModel } from "./scripted-chat-model.js";
export { policyChatModel } from "./policy-chat-model.js";
export { DelayedSimulatedUser, SimulatedModelError, type DelayedUserOptions } from "./delayed-user.js";
