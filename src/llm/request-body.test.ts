import { describe, expect, it } from "vitest";
import { parseModelEndpointConfig } from "./endpoint-config.js";
import { buildChatCompletionBody, effectiveParams } from "./request-body.js";

const schema = { name: "reply", schema: { type: "object" } };

describe("buildChatCompletionBody", () => {
  it("asks for one JSON reply by default and leaves unset sampling to the server", () => {
    const config = parseModelEndpointConfig({ baseUrl: "http://h/v1", model: "m" });
    expect(buildChatCompletionBody(config, { messages: [{ role: "user", content: "hi" }] })).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: false,
    });
  });

  it("streams with usage when the endpoint says stream: true", () => {
    const config = parseModelEndpointConfig({ baseUrl: "http://h/v1", model: "m", stream: true });
    expect(buildChatCompletionBody(config, { messages: [{ role: "user", content: "hi" }] })).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("lets the request override config sampling", () => {
    const config = parseModelEndpointConfig({ baseUrl: "http://h/v1", model: "m", temperature: 1, topP: 0.9 });
    const params = effectiveParams(config, { messages: [], temperature: 0 });
    expect(params).toMatchObject({ temperature: 0, topP: 0.9 });
  });

  it.each([
    ["json_schema", { type: "json_schema", json_schema: { ...schema, strict: true } }],
    ["json_object", { type: "json_object" }],
    ["none", undefined],
  ] as const)("maps structuredOutput %s", (mode, expected) => {
    const config = parseModelEndpointConfig({ baseUrl: "http://h/v1", model: "m", structuredOutput: mode });
    const body: Record<string, unknown> = { ...buildChatCompletionBody(config, { messages: [], jsonSchema: schema }) };
    expect(body.response_format).toEqual(expected);
  });

  it("passes extraBody through but never lets it replace the core fields", () => {
    const config = parseModelEndpointConfig({
      baseUrl: "http://h/v1",
      model: "m",
      temperature: 0.3,
      stream: true,
      extraBody: { top_k: 20, stream: false, stream_options: { include_usage: false }, model: "other", temperature: 2 },
    });
    const body = buildChatCompletionBody(config, { messages: [] }) as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ top_k: 20, stream: true, stream_options: { include_usage: true }, model: "m", temperature: 0.3 });
    const plain = parseModelEndpointConfig({
      baseUrl: "http://h/v1",
      model: "m",
      extraBody: { stream: true, stream_options: { include_usage: true } },
    });
    expect(buildChatCompletionBody(plain, { messages: [] })).toEqual({ model: "m", messages: [], stream: false });
  });
});
