/**
 * The typical first-hour mistakes of issue 24 whose messages did not name the cause and the fix,
 * made as a user makes them (the CLI in-process, a config file, a real process where the command
 * listens), each checked for a message that says what is wrong and what to do. The others of
 * the 28 were already good and have their tests where their command does (run-flags, chat,
 * paper-setup, server-cli...).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCli, temporaryDirectory } from "./helpers/cli.js";
import { useMockLlm } from "./helpers/mock-llm.js";

const startMock = useMockLlm();

function configFile(text: string, name = "config.yaml"): string {
  const path = join(temporaryDirectory(), name);
  writeFileSync(path, text);
  return path;
}

const held: Server[] = [];
afterEach(async () => {
  while (held.length > 0) await new Promise<void>((resolve) => held.pop()!.close(() => resolve()));
});
/** A port something else holds, as a second viewer or a model server would. */
async function takenPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  return (server.address() as { port: number }).port;
}

describe("config mistakes name the key, what it means and the fix", () => {
  it("3: an endpoint without model says the key is missing and what it is", async () => {
    const result = await runCli([
      "run",
      "--config",
      configFile("conditions:\n  - name: a\n    agent: { kind: llm, endpoint: { baseUrl: http://localhost:8000/v1 } }\n"),
      "--dry-run",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "conditions.[0].agent.endpoint.model: missing; it is required (the model's name as the server knows it (vLLM --served-model-name",
    );
  });

  it("4: bad indentation names the line that is wrong", async () => {
    const result = await runCli([
      "run",
      "--config",
      configFile("seed: 1\nscenarios:\n  suite: starter\n   types: [escalation]\n"),
      "--dry-run",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("line 4 is indented deeper than line 3, which already has its value");
  });

  it("5: a misspelt key gets did you mean", async () => {
    const result = await runCli(["run", "--config", configFile("repeat: 3\n"), "--dry-run"]);
    expect(result.stderr).toContain('unknown key "repeat": did you mean "repeats"? (docs/config-reference.md)');
  });

  it("7: an unknown prompt pack lists the packs and the nearest one", async () => {
    const result = await runCli([
      "run",
      "--config",
      configFile("simulator: { kind: llm, promptPack: sage-paper, endpoint: { baseUrl: http://localhost:8000/v1, model: m } }\n"),
      "--dry-run",
    ]);
    expect(result.stderr).toContain(
      'simulator.promptPack: "sage-paper" is not allowed; one of aeb-json, sage, rlver, aeb-paper, or { dir }: did you mean "aeb-paper"?',
    );
    expect(result.stderr).not.toContain("Invalid input");
  });

  it("8: an unknown key with no near one lists the keys its object takes, path among them", async () => {
    const result = await runCli(["run", "--config", configFile("scenarios: { source: my-scenarios/ }\n"), "--dry-run"]);
    expect(result.stderr).toContain(
      'scenarios: unknown key "source": scenarios takes: path, suite, types, ids, skipInvalid, preset (docs/config-reference.md)',
    );
  });

  it("an enum value gets did you mean too", async () => {
    const result = await runCli([
      "run",
      "--config",
      configFile("conditions:\n  - { name: a, agent: { kind: reference, id: atuned } }\n"),
      "--dry-run",
    ]);
    expect(result.stderr).toMatch(/conditions\.\[0\]\.agent\.id: "atuned" is not allowed; one of formulaic, .*: did you mean "attuned"\?/);
  });
});

describe("endpoint mistakes say which endpoint and what to change", () => {
  it("13: a base URL without /v1 suggests it with /v1", async () => {
    const server = await startMock({ models: ["agent"] });
    const bare = server.url.replace(/\/v1$/, "");
    const result = await runCli([
      "run",
      "--agent-url",
      bare,
      "--agent-model",
      "agent",
      "--suite",
      "starter",
      "--out",
      join(temporaryDirectory(), "o"),
      "--no-progress",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`HTTP 404`);
    expect(result.stderr).toContain(`OpenAI-compatible servers answer under /v1: try baseUrl ${bare}/v1`);
  });

  it("15: a refused key names the variable it came from, or says none was set", async () => {
    const server = await startMock({ models: ["agent"], requireApiKey: "sk-right-123" });
    const args = ["run", "--agent-url", server.url, "--agent-model", "agent", "--suite", "starter", "--no-progress"];
    const wrong = await runCli([...args, "--api-key-env", "AEB_TEST_KEY", "--out", join(temporaryDirectory(), "o")], {
      env: { AEB_TEST_KEY: "sk-wrong-456" },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      new RegExp(
        `${server.url.replace(/[./]/g, "\\$&")}: HTTP 401.*the server refused the key in \\$AEB_TEST_KEY: check that variable holds this server's key`,
      ),
    );
    expect(wrong.stderr).not.toContain("sk-wrong-456");
    const none = await runCli([...args, "--out", join(temporaryDirectory(), "o")]);
    expect(none.stderr).toContain(
      "the server wants an API key and none was configured (a placeholder was sent): set apiKeyEnv (or --api-key-env)",
    );
  });
});

describe("commands that listen say when the port is taken", () => {
  it("19: aeb mock-llm on a taken port says so and how to pick another", async () => {
    const port = await takenPort();
    const result = await runCli(["mock-llm", "--aeb", "--port", String(port)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `port ${port} on 127.0.0.1 is already in use (another aeb mock-llm, or the model server it stands in for?); choose another --port, or --port 0 for a free one`,
    );
    expect(result.stderr).not.toContain("unexpected error");
  });

  it("18: aeb view on a taken port falls back to a free one and prints it", async () => {
    const port = await takenPort();
    const out = join(temporaryDirectory(), "run");
    expect((await runCli(["run", "--suite", "starter", "--types", "escalation", "--out", out, "--no-progress"])).code).toBe(0);
    const viewer = spawn(process.execPath, [CLI, "view", out, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    viewer.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`aeb view printed no URL: ${stdout}${stderr}`)), 30_000);
      viewer.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /open (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (found !== null) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      });
    });
    try {
      expect(stderr).toContain(`note: port ${port} on 127.0.0.1 is in use (another aeb view?); listening on a free port instead`);
      expect(url).not.toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${url}/api/runs`)).status).toBe(200);
    } finally {
      viewer.kill("SIGTERM");
    }
  }, 60_000);
});
