/**
 * The project's mock OpenAI-compatible server with the AEB reply policy, one per call, closed
 * after each test of the file that uses it.
 */
import { afterEach } from "vitest";
import { startMockLlmServer, type MockLlmServer, type MockLlmServerOptions } from "../../src/testing/mock-llm-server.js";
import { aebMockReply } from "../../src/testing/aeb-mock-policy.js";

/** Registers the cleanup in the calling test file and returns the starter. */
export function useMockLlm(): (options?: Partial<MockLlmServerOptions>) => Promise<MockLlmServer> {
  const servers: MockLlmServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });
  return async (options = {}) => {
    const server = await startMockLlmServer({ models: ["sim", "agent", "judge"], reply: aebMockReply, ...options });
    servers.push(server);
    return server;
  };
}
