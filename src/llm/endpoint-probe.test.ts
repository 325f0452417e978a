import { afterEach, describe, expect, it } from "vitest";
import { probe } from "./endpoint-probe.js";
import { ModelProbeError } from "./errors.js";
import { startMockLlmServer, type MockLlmServer, type MockLlmServerOptions } from "../testing/mock-llm-server.js";

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function mock(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const server = await startMockLlmServer(options);
  servers.push(server);
  return server;
}
/** A base URL on 127.0.0.1 where nothing listens any more. */
async function deadUrl(): Promise<string> {
  const server = await startMockLlmServer();
  await server.close();
  return server.url;
}

describe("probe", () => {
  it("passes every replica that lists the model in GET /models", async () => {
    const a = await mock();
    const b = await mock();
    const results = await probe({ baseUrls: [a.url, b.url], model: "mock-model" });
    expect(results.map((r) => [r.endpoint, r.via])).toEqual([
      [a.url, "models"],
      [b.url, "models"],
    ]);
    expect(a.chatRequests()).toHaveLength(0);
  });

  it("falls back to a 1-token completion when /models is not served", async () => {
    const server = await mock({ servesModels: false });
    const [result] = await probe({ baseUrl: server.url, model: "mock-model" });
    expect(result?.via).toBe("completion");
    expect(server.chatRequests()[0]?.body).toMatchObject({ max_tokens: 1, stream: false });
  });

  it("fails, naming endpoint and model, when the replica serves other models", async () => {
    const server = await mock({ models: ["llama-3-8b"] });
    const error = await probe({ baseUrl: server.url, model: "qwen3-8b" }).catch((e: unknown) => e);
    expect(ModelProbeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(server.url);
    expect((error as Error).message).toContain('does not serve model "qwen3-8b" (serves: llama-3-8b)');
  });

  it("fails on an unreachable replica and lists only the failing ones", async () => {
    const live = await mock();
    const dead = await deadUrl();
    const config = { baseUrls: [live.url, dead], model: "mock-model" };
    const error = (await probe(config).catch((e: unknown) => e)) as ModelProbeError;
    expect(ModelProbeError.isInstance(error)).toBe(true);
    expect(error.failures).toEqual([{ endpoint: dead, reason: "unreachable (ECONNREFUSED)" }]);
    expect(error.message).toContain('model "mock-model"');
  });

  it("fails on a hung replica within its budget", async () => {
    const server = await mock({ servesModels: false, faults: [{ type: "hang" }] });
    const error = (await probe({ baseUrl: server.url, model: "mock-model" }, { timeoutMs: 200 }).catch(
      (e: unknown) => e,
    )) as ModelProbeError;
    expect(error.failures[0]?.reason).toBe("no answer within 200 ms");
  });

  it("never shows the API key, even when the server echoes it", async () => {
    const server = await mock({ requireApiKey: "expected" });
    const error = await probe(
      { baseUrl: server.url, model: "mock-model", apiKeyEnv: "AEB_PROBE_KEY" },
      { env: { AEB_PROBE_KEY: "sk-secret-123" } },
    ).catch((e: unknown) => e);
    expect((error as Error).message).toContain("HTTP 401");
    expect((error as Error).message).not.toContain("sk-secret-123");
    expect(JSON.stringify(error)).not.toContain("sk-secret-123");
  });

  it("accepts a rate-limited completion as proof the model is served", async () => {
    const server = await mock({ servesModels: false, faults: [{ type: "status", status: 429 }] });
    const [result] = await probe({ baseUrl: server.url, model: "mock-model" });
    expect(result).toMatchObject({ via: "completion", note: "rate-limited (HTTP 429)" });
  });
});
