import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MockLlmServer } from "./mock-llm-server.js";
import { mockServerOptionsFromCli, runMockLlmServer } from "./mock-llm-cli.js";

const servers: MockLlmServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function scriptFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "aeb-mock-cli-"));
  dirs.push(dir);
  const path = join(dir, "script.json");
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

async function ask(url: string, model = "mock-model"): Promise<string> {
  const response = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  const json = (await response.json()) as { choices: { message: { content: string } }[] };
  return json.choices[0]?.message.content ?? "";
}

describe("runMockLlmServer (aeb mock-llm)", () => {
  it("starts with --reply and prints the URL to use as baseUrl", async () => {
    const lines: string[] = [];
    const server = await runMockLlmServer({ port: 0, reply: "I am a mock.", model: "tiny" }, { log: (line) => lines.push(line) });
    servers.push(server);

    expect(lines).toEqual([`mock LLM server listening at ${server.url} (models: tiny)`]);
    expect(await ask(server.url, "tiny")).toBe("I am a mock.");
  });

  it("replays a --script file of replies in order", async () => {
    const path = await scriptFile(["first", { content: "second", reasoning: "why" }]);
    const server = await runMockLlmServer({ port: 0, script: path }, { log: () => undefined });
    servers.push(server);
    expect([await ask(server.url), await ask(server.url), await ask(server.url)]).toEqual(["first", "second", "first"]);
  });

  it("lets flags override the script", async () => {
    const path = await scriptFile({ models: ["from-script"], latency: 5, chunkChars: 3, seed: 9 });
    const options = await mockServerOptionsFromCli({ port: 0, script: path, latencyMedianMs: 100, latencySigma: 0.5 });
    expect(options).toMatchObject({
      port: 0,
      models: ["from-script"],
      latency: { medianMs: 100, sigma: 0.5 },
      chunkChars: 3,
      seed: 9,
    });
  });

  it("turns --failure-rate into a seeded probabilistic fault", async () => {
    const options = await mockServerOptionsFromCli({ failureRate: 0.1, failureStatus: 503, seed: 3 });
    expect(options.faults).toEqual([{ type: "status", status: 503, probability: 0.1 }]);
    expect(options).toMatchObject({ host: "127.0.0.1", port: 8000, seed: 3 });
  });

  it("rejects contradictory or invalid input with a clear message", async () => {
    await expect(mockServerOptionsFromCli({ reply: "x", script: "y.json" })).rejects.toThrow(/either --reply or --script/);
    await expect(mockServerOptionsFromCli({ latencyMedianMs: 100 })).rejects.toThrow(/go together/);
    await expect(mockServerOptionsFromCli({ port: Number.NaN })).rejects.toThrow();
    const bad = await scriptFile({ faults: [{ type: "explode" }] });
    await expect(mockServerOptionsFromCli({ script: bad })).rejects.toThrow(/invalid script/);
    const broken = await scriptFile("{ not json");
    await expect(mockServerOptionsFromCli({ script: broken })).rejects.toThrow(/cannot read script/);
  });
});
