import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { APIConnectionError, APIError } from "openai";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer, type MockLlmServerOptions } from "../testing/mock-llm-server.js";
import { completionTarget, completionTargetAt, sendCompletion } from "./direct-completion.js";
import { createOpenAIChatModel } from "./openai-chat-model.js";
import { createSdkClient } from "./sdk-client.js";

const servers: MockLlmServer[] = [];
const agent = new Agent();

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function mock(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const server = await startMockLlmServer(options);
  servers.push(server);
  return server;
}

/** The headers a request arrived with, less those the socket layer sets per request. */
function sentHeaders(headers: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const { host: _host, connection: _connection, "content-length": _length, "transfer-encoding": _encoding, ...rest } = headers;
  return rest;
}

describe("plain completions straight over undici", () => {
  it("sends the URL and headers the SDK sends (a streamed call, still through the SDK, is the reference)", async () => {
    const server = await mock({ reply: "hello there" });
    const model = createOpenAIChatModel({ baseUrl: server.url, model: "mock-model", timeoutMs: 30_000 }, { role: "agent" });
    const streamed = createOpenAIChatModel(
      { baseUrl: server.url, model: "mock-model", timeoutMs: 30_000, stream: true },
      { role: "agent" },
    );
    expect((await model.complete({ messages: [{ role: "user", content: "hi" }] })).text).toBe("hello there");
    expect((await streamed.complete({ messages: [{ role: "user", content: "hi" }] })).text).toBe("hello there");
    const [plain, sdk] = server.chatRequests();
    expect(plain?.path).toBe("/v1/chat/completions");
    expect(plain?.path).toBe(sdk?.path);
    expect(sentHeaders(plain?.headers ?? {})).toEqual(sentHeaders(sdk?.headers ?? {}));
    expect(plain?.headers.authorization).toBe("Bearer EMPTY");
    expect(plain?.headers["x-stainless-timeout"]).toBe("30");
    expect(plain?.body).toMatchObject({ model: "mock-model", stream: false, messages: [{ role: "user", content: "hi" }] });
  });

  it("reads a JSON reply and its processing time, and turns a status with a JSON error body into the SDK's error", async () => {
    const server = await mock({ reply: "fine" });
    const target = await completionTarget(createSdkClient({ baseUrl: server.url, apiKey: "k", timeoutMs: 1000 }), 1000);
    const reply = await sendCompletion(target, { model: "mock-model", messages: [] }, new AbortController().signal, agent);
    expect((reply.completion as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe("fine");
    expect(Number(reply.processingMs)).toBeGreaterThanOrEqual(0);

    const unknown = await sendCompletion(target, { model: "no-such-model", messages: [] }, new AbortController().signal, agent).catch(
      (error: unknown) => error,
    );
    // A 404 with a JSON error body: the SDK's status error, the server's message in it.
    expect(unknown).toBeInstanceOf(APIError);
    expect((unknown as APIError).status).toBe(404);
    expect((unknown as APIError).message).toContain("does not exist");
  });

  it("cuts the target's URL once into origin and path, the query kept", () => {
    const target = completionTargetAt("http://127.0.0.1:8000/v1/chat/completions?api-version=2024-06-01", ["accept", "application/json"]);
    expect(target).toEqual({
      url: "http://127.0.0.1:8000/v1/chat/completions?api-version=2024-06-01",
      origin: "http://127.0.0.1:8000",
      path: "/v1/chat/completions?api-version=2024-06-01",
      headers: ["accept", "application/json"],
    });
  });

  it("throws the SDK's shapes: a status error with the server's headers, a connection error with the socket's cause", async () => {
    const server = await mock({ faults: [{ type: "error-event", code: 429, message: "slow down" }] });
    const target = await completionTarget(createSdkClient({ baseUrl: server.url, apiKey: "k", timeoutMs: 1000 }), 1000);
    const failed = await sendCompletion(target, { model: "mock-model", messages: [] }, new AbortController().signal, agent).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(APIError);
    expect((failed as APIError).status).toBe(429);
    expect((failed as APIError).message).toContain("slow down");
    expect((failed as APIError).headers?.get("content-type")).toContain("application/json");

    const refused = await sendCompletion(
      completionTargetAt("http://127.0.0.1:9/v1/chat/completions", target.headers),
      {},
      new AbortController().signal,
      agent,
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect((refused as APIConnectionError).cause).toMatchObject({ code: "ECONNREFUSED" });
  });

  it("a 200 whose body is not JSON (a proxy's page, a cut body) throws SyntaxError, as the SDK's response.json() does", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"choices": [{"message": {"content": "cut off');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const failed = await sendCompletion(
        completionTargetAt(`http://127.0.0.1:${port}/v1/chat/completions`, []),
        { model: "m", messages: [] },
        new AbortController().signal,
        agent,
      ).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(SyntaxError);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
