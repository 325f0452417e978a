import { afterEach, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockChatRequest, type MockLlmServer, type MockLlmServerOptions } from "./mock-llm-server.js";
import { countWords } from "./mock-llm-responses.js";

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function mock(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const server = await startMockLlmServer(options);
  servers.push(server);
  return server;
}

/** Plain fetch against the mock, the way any OpenAI-compatible client would call it. */
async function chat(server: MockLlmServer, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "mock-model", messages: [{ role: "user", content: "hi there" }], ...body }),
  });
}

async function replyText(server: MockLlmServer, body: Record<string, unknown> = {}): Promise<string> {
  const json = (await (await chat(server, body)).json()) as { choices: { message: { content: string } }[] };
  return json.choices[0]?.message.content ?? "";
}

/** Parses an SSE body into its JSON events (without the final [DONE]). */
function sseEvents(text: string): Record<string, unknown>[] {
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: ") && !block.includes("[DONE]"))
    .map((block) => JSON.parse(block.slice("data: ".length)) as Record<string, unknown>);
}

describe("startMockLlmServer", () => {
  it("listens on an ephemeral 127.0.0.1 port and lists its models", async () => {
    const server = await mock({ models: ["a", "b"] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["a", "b"]);
  });

  it("answers with a fixed reply, usage and reasoning", async () => {
    const server = await mock({ reply: { content: "one two three", reasoning: "hmm" } });
    const json = (await (await chat(server)).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: { role: "assistant", content: "one two three", reasoning_content: "hmm" },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 },
    });
  });

  it("counts words as runs outside JavaScript's whitespace, Unicode spaces included", () => {
    const text = " one\ttwo\u00a0three\u3000四\u2003five\ufeff six\n\n";
    expect(countWords(text)).toBe(text.split(/\s+/).filter((word) => word.length > 0).length);
    expect(countWords(text)).toBe(6);
    expect(countWords("")).toBe(0);
    expect(countWords("\u200b")).toBe(1); // a zero-width space is not whitespace to \s
  });

  it("records nothing when asked not to, and still answers", async () => {
    const server = await mock({ reply: "fine", recordRequests: false });
    expect(await replyText(server)).toBe("fine");
    expect(server.requests).toEqual([]);
    expect(server.chatRequests()).toEqual([]);
  });

  it("with answerOnArrival works out the reply before the latency and sends the same completion after it", async () => {
    const seen: MockChatRequest[] = [];
    const calledAt: number[] = [];
    const reply = (request: MockChatRequest) => {
      seen.push(request);
      calledAt.push(performance.now());
      return `echo ${request.messages.map((message) => message.content).join(" ")}`;
    };
    const early = await mock({ reply, latency: 150, answerOnArrival: true });
    const late = await mock({ reply, latency: 150 });
    const earlyJson = (await (await chat(early)).json()) as Record<string, unknown>;
    const earlyAnsweredAt = performance.now();
    const lateSentAt = performance.now();
    const lateJson = (await (await chat(late)).json()) as Record<string, unknown>;
    // Both bounds are the 150 ms sleep's: the early reply ran before it, the late one after it.
    expect(earlyAnsweredAt - calledAt[0]!).toBeGreaterThanOrEqual(140);
    expect(calledAt[1]! - lateSentAt).toBeGreaterThanOrEqual(140);
    const { id: _earlyId, created: _earlyCreated, ...earlyRest } = earlyJson;
    const { id: _lateId, created: _lateCreated, ...lateRest } = lateJson;
    expect(earlyRest).toEqual(lateRest);
    expect(earlyRest).toMatchObject({ choices: [{ message: { content: "echo hi there" } }], usage: { prompt_tokens: 2 } });
  });

  it("with answerOnArrival a failing reply answers 500 after the latency, not an unhandled rejection", async () => {
    const server = await mock({
      reply: () => Promise.reject(new Error("policy broke")),
      latency: 50,
      answerOnArrival: true,
    });
    const response = await chat(server);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("policy broke");
  });

  it("cycles a list of replies in order", async () => {
    const server = await mock({ reply: ["first", "second"] });
    const replies = [await replyText(server), await replyText(server), await replyText(server)];
    expect(replies).toEqual(["first", "second", "first"]);
  });

  it("scripts replies with a function of the request (e.g. a simulated user's JSON)", async () => {
    const server = await mock({
      reply: (request) => JSON.stringify({ turn: request.n, echoed: request.messages.at(-1)?.content }),
    });
    expect(JSON.parse(await replyText(server))).toEqual({ turn: 1, echoed: "hi there" });
  });

  it("streams SSE chunks with the reply split up, a finish reason and usage when asked", async () => {
    const server = await mock({ reply: "abcdefghij", chunkChars: 4, reasoning: "r" });
    const response = await chat(server, { stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);

    type Chunk = { choices: { delta: Record<string, string>; finish_reason: string | null }[]; usage?: unknown };
    const events = sseEvents(text) as Chunk[];
    const deltas = events.flatMap((e) => e.choices.map((c) => c.delta.content ?? "")).join("");
    expect(deltas).toBe("abcdefghij");
    expect(events.flatMap((e) => e.choices.map((c) => c.delta.reasoning_content ?? "")).join("")).toBe("r");
    expect(events.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(events.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 2 } });
  });

  it("records requests and can be reset", async () => {
    const server = await mock({ reply: ["x", "y"] });
    await chat(server, { temperature: 0.5 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      body: { temperature: 0.5 },
    });

    server.reset();
    expect(server.requests).toHaveLength(0);
    expect(await replyText(server)).toBe("x");
  });

  it("injects a status with Retry-After on the Nth request only", async () => {
    const server = await mock({ faults: [{ type: "status", status: 429, retryAfter: 3, on: [2] }] });
    expect((await chat(server)).status).toBe(200);
    const limited = await chat(server);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(((await limited.json()) as { error: { message: string } }).error.message).toContain("429");
    expect((await chat(server)).status).toBe(200);
    expect(server.chatRequests().map((r) => r.fault)).toEqual([undefined, "status", undefined]);
  });

  it("injects faults with a seeded probability, reproducibly", async () => {
    const statuses = async (): Promise<number[]> => {
      const server = await mock({ seed: 42, faults: [{ type: "status", status: 503, probability: 0.5 }] });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await chat(server)).status);
      return out;
    };
    const first = await statuses();
    expect(first).toEqual(await statuses());
    expect(first).toContain(503);
    expect(first).toContain(200);
  });

  it("sends headers then stalls the body", async () => {
    const server = await mock({ faults: [{ type: "stall-after-headers" }] });
    const response = await chat(server, { stream: true });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    const stillWaiting = new Promise((resolve) => setTimeout(() => resolve("stalled"), 100));
    expect(await Promise.race([reader?.read(), stillWaiting])).toBe("stalled");
    await reader?.cancel();
  });

  it("drops the connection mid-stream", async () => {
    const server = await mock({ faults: [{ type: "drop-mid-stream", afterChunks: 1 }] });
    const response = await chat(server, { stream: true });
    await expect(response.text()).rejects.toThrow();
  });

  it("answers an empty completion", async () => {
    const server = await mock({ faults: [{ type: "empty-completion" }] });
    expect(await replyText(server)).toBe("");
  });

  it("rejects unknown models with 404, like vLLM", async () => {
    const server = await mock();
    expect((await chat(server, { model: "nope" })).status).toBe(404);
  });

  it("can refuse to serve /models", async () => {
    const server = await mock({ servesModels: false });
    expect((await fetch(`${server.url}/models`)).status).toBe(404);
  });

  it("requires the API key when asked and echoes a wrong one (to test redaction)", async () => {
    const server = await mock({ requireApiKey: "good" });
    const response = await fetch(`${server.url}/models`, { headers: { authorization: "Bearer bad-key" } });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("bad-key");
  });

  it("tracks the highest number of concurrent chat requests", async () => {
    const server = await mock({ latency: 40 });
    await Promise.all([chat(server), chat(server), chat(server)]);
    expect(server.maxConcurrent).toBe(3);
    expect(server.inFlight).toBe(0);
  });

  it("closes even with a hung request open", async () => {
    const server = await startMockLlmServer({ faults: [{ type: "hang" }] });
    const pending = chat(server).catch((e: unknown) => e);
    while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});
