import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT, ModelEndpointConfig, parseModelEndpointConfig } from "./endpoint-config.js";

describe("ModelEndpointConfig", () => {
  it("normalises a single baseUrl to a list and fills defaults", () => {
    const config = parseModelEndpointConfig({ baseUrl: "http://127.0.0.1:8000/v1", model: "qwen3-8b" });
    expect(config).toEqual({
      baseUrls: ["http://127.0.0.1:8000/v1"],
      model: "qwen3-8b",
      stream: false,
      timeoutMs: 120_000,
      idleTimeoutMs: 60_000,
      maxRetries: 4,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 30_000,
      circuitBreaker: { failures: 5, probeIntervalMs: 2_000, maxWaitMs: 600_000 },
      structuredOutput: "json_schema",
    });
  });

  it("leaves the per-endpoint cap unset unless given, so that a caller can tell a chosen cap from the default", () => {
    expect(parseModelEndpointConfig({ baseUrl: "http://127.0.0.1:8000/v1", model: "m" }).maxConcurrencyPerEndpoint).toBeUndefined();
    expect(
      parseModelEndpointConfig({ baseUrl: "http://127.0.0.1:8000/v1", model: "m", maxConcurrencyPerEndpoint: 16 })
        .maxConcurrencyPerEndpoint,
    ).toBe(16);
    expect(DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT).toBe(16);
  });

  it("accepts several replicas, sampling defaults and a pass-through body", () => {
    const config = parseModelEndpointConfig({
      baseUrls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"],
      model: "qwen3-8b",
      apiKeyEnv: "VLLM_API_KEY",
      temperature: 0.7,
      topP: 0.95,
      maxTokens: 512,
      seed: 7,
      structuredOutput: "json_object",
      extraBody: { chat_template_kwargs: { enable_thinking: false } },
    });
    expect(config.baseUrls).toHaveLength(2);
    expect(config.extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
  });

  it("is idempotent: a parsed config parses to itself", () => {
    const once = parseModelEndpointConfig({ baseUrl: "http://h:1/v1", model: "m" });
    expect(ModelEndpointConfig.parse(once)).toEqual(once);
  });

  it("requires exactly one of baseUrl and baseUrls", () => {
    expect(() => parseModelEndpointConfig({ model: "m" })).toThrow(/exactly one of baseUrl or baseUrls/);
    expect(() => parseModelEndpointConfig({ model: "m", baseUrl: "http://a/v1", baseUrls: ["http://b/v1"] })).toThrow(/exactly one/);
  });

  it("rejects typos instead of ignoring them", () => {
    expect(() => parseModelEndpointConfig({ baseUrl: "http://a/v1", model: "m", temprature: 0.2 })).toThrow();
  });

  it("rejects a key pasted where the variable name belongs, without echoing it", () => {
    const attempt = () => parseModelEndpointConfig({ baseUrl: "http://a/v1", model: "m", apiKeyEnv: "sk-live-abc123" });
    expect(attempt).toThrow(/NAME of an environment variable/);
    expect(attempt).not.toThrow(/sk-live-abc123/);
  });

  it("rejects duplicate replicas and non-http URLs", () => {
    expect(() => parseModelEndpointConfig({ baseUrls: ["http://a/v1", "http://a/v1/"], model: "m" })).toThrow(/same replica twice/);
    expect(() => parseModelEndpointConfig({ baseUrl: "ftp://a/v1", model: "m" })).toThrow();
  });
});
