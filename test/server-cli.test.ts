/**
 * `aeb serve` as a process: it starts, serves, refuses unsafe settings, runs several workers on one
 * port, and exits cleanly on SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import type { ResetResponse, StepResponse } from "../src/server/api-schemas.js";
import { DialogueRecordSchema } from "../src/core/dialogue.js";
import { CLI, runCli, runCliProcess, temporaryDirectory } from "./helpers/cli.js";

const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `aeb serve` on a free loopback port and resolves with its URL once it listens. */
function serve(args: string[], env: Record<string, string> = {}) {
  const baseEnv = { ...process.env };
  delete baseEnv.AEB_SERVER_SECRET;
  delete baseEnv.AEB_SERVER_TOKEN;
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--suite", "starter", "--host", "127.0.0.1", "--port", "0", "--log-level", "warn", ...args],
    {
      env: { ...baseEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 20);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`aeb serve exited with ${code}: ${stderr}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

const json = { "content-type": "application/json" };

describe("aeb serve", () => {
  it("serves the environment and exits 0 on SIGTERM", async () => {
    const server = serve([], { AEB_SERVER_SECRET: "cli-test-secret-cli-test-secret" });
    const url = await server.url;
    const reset = (await (
      await fetch(`${url}/v1/reset`, { method: "POST", headers: json, body: JSON.stringify({ seed: 3 }) })
    ).json()) as ResetResponse;
    expect(reset.preset).toBe("rlver");
    const step = await fetch(`${url}/v1/step`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "What happened?" }),
    });
    expect(step.status).toBe(200);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.output().stderr).toContain("stopped");
    expect(server.output().stderr).not.toContain("no AEB_SERVER_SECRET");
  });

  it("warns when no secret is set, never prints the secret or the bearer token, and exits 1 when the shutdown timeout cuts a step", async () => {
    const server = serve(["--mock-user-latency", "3000", "--shutdown-timeout", "1"], { AEB_SERVER_TOKEN: "cli-bearer-token-value" });
    const url = await server.url;
    const headers = { ...json, authorization: "Bearer cli-bearer-token-value" };
    const reset = (await (
      await fetch(`${url}/v1/reset`, { method: "POST", headers, body: JSON.stringify({ seed: 3 }) })
    ).json()) as ResetResponse;
    const inFlight = fetch(`${url}/v1/step`, {
      method: "POST",
      headers,
      body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "What happened?" }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(await inFlight).toBeInstanceOf(Error);
    const { stdout, stderr } = server.output();
    expect(stderr).toMatch(/no AEB_SERVER_SECRET; using a random secret/);
    expect(stderr).toMatch(/shutdown timeout: 1 request\(s\) still in flight after 1 s were cut/);
    expect(stdout).toContain("bearer token required");
    expect(`${stdout}${stderr}`).not.toContain("cli-bearer-token-value");
  });

  it("with --workers 2, exits 1 when a worker's shutdown timeout cuts a step (the primary's exit code is the workers')", async () => {
    const server = serve(["--workers", "2", "--mock-user-latency", "4000", "--shutdown-timeout", "1"], {
      AEB_SERVER_SECRET: "cli-test-secret-cli-test-secret",
    });
    const url = await server.url;
    const reset = (await (
      await fetch(`${url}/v1/reset`, { method: "POST", headers: json, body: JSON.stringify({ seed: 3 }) })
    ).json()) as ResetResponse;
    const inFlight = fetch(`${url}/v1/step`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "What happened?" }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(await inFlight).toBeInstanceOf(Error);
    expect(server.output().stderr).toMatch(/shutdown timeout: 1 request\(s\) still in flight after 1 s were cut/);
    expect(server.output().stderr).toMatch(/aeb serve: stopped \(a worker's shutdown cut requests, or a worker was killed\)/);
  });

  it("with --workers 2, exits 0 when every in-flight step finished within the shutdown timeout", async () => {
    const server = serve(["--workers", "2", "--mock-user-latency", "300", "--shutdown-timeout", "5"], {
      AEB_SERVER_SECRET: "cli-test-secret-cli-test-secret",
    });
    const url = await server.url;
    const reset = (await (
      await fetch(`${url}/v1/reset`, { method: "POST", headers: json, body: JSON.stringify({ seed: 3 }) })
    ).json()) as ResetResponse;
    const inFlight = fetch(`${url}/v1/step`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "What happened?" }),
    });
    // SIGTERM once a worker plays the step (a fixed wait lost the race on a loaded machine: the
    // signal came before the request, so nothing was in flight and the test proved nothing).
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const metrics = await (await fetch(`${url}/metrics`, { headers: { connection: "close" } })).text();
      if (/^aeb_env_steps_in_flight [1-9]/m.test(metrics)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    server.child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await server.exited).toBe(0);
  });

  it("refuses to listen beyond loopback without a bearer token, refuses a short secret and a port in use", async () => {
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, "127.0.0.1", resolve));
    const busyPort = (occupant.address() as AddressInfo).port;
    onTestFinished(() => void occupant.close());
    const open = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], { env: { AEB_SERVER_TOKEN: "" } });
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/needs a bearer token: set AEB_SERVER_TOKEN/);
    const short = await runCli(["serve", "--port", "0"], { env: { AEB_SERVER_SECRET: "short" } });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 16 bytes/);
    // A port in use is a clear error, and the process exits (its threads do not keep it alive): a real process, with the built step worker.
    const taken = await runCliProcess(["serve", "--port", String(busyPort)], {
      env: { AEB_SERVER_SECRET: "cli-test-secret-cli-test-secret" },
    });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(new RegExp(`port ${busyPort} on 127\\.0\\.0\\.1 is already in use.*choose another --port`));
    const badPreset = await runCli(["serve", "--preset", "happy"]);
    expect(badPreset.code).not.toBe(0);
    expect(badPreset.stderr).toMatch(/expected one of aeb, aeb-plus, sage, rlver, scenario/);
  });

  it("runs several workers on one port: any worker serves any step, metrics add up, sessions are off, the primary writes the recording", async () => {
    const recording = join(temporaryDirectory(), "train");
    const server = serve(["--workers", "2", "--record", recording], {
      AEB_SERVER_SECRET: "cli-test-secret-cli-test-secret",
      AEB_SERVER_TOKEN: "bearer",
    });
    const url = await server.url;
    const headers = { ...json, authorization: "Bearer bearer" };
    const resets: ResetResponse[] = [];
    for (let seed = 0; seed < 6; seed += 1) {
      // A new connection each time, so the requests spread over the workers.
      resets.push(
        (await (
          await fetch(`${url}/v1/reset`, { method: "POST", headers: { ...headers, connection: "close" }, body: JSON.stringify({ seed }) })
        ).json()) as ResetResponse,
      );
    }
    for (const reset of resets) {
      const step = await fetch(`${url}/v1/step`, {
        method: "POST",
        headers: { ...headers, connection: "close" },
        body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "Tell me more." }),
      });
      expect(step.status).toBe(200);
      expect(((await step.json()) as StepResponse).turnIndex).toBe(1);
    }
    const metrics = await (await fetch(`${url}/metrics`, { headers })).text();
    expect(metrics).toContain('aeb_env_resets_total{preset="rlver"} 6');
    expect(metrics).toContain('aeb_env_steps_total{api="stateless",outcome="ok"} 6');
    const session = await fetch(`${url}/v1/sessions`, { method: "POST", headers, body: "{}" });
    expect(session.status).toBe(501);
    expect(await session.json()).toMatchObject({ code: "sessions_unavailable" });
    // Play the episodes to their end, each step on a new connection (so on either worker).
    for (const reset of resets) {
      let state = { token: reset.token, messages: reset.messages, done: false };
      while (!state.done) {
        const reply = "Tell me more about what happened.";
        const step = (await (
          await fetch(`${url}/v1/step`, {
            method: "POST",
            headers: { ...headers, connection: "close" },
            body: JSON.stringify({ ...state, done: undefined, reply }),
          })
        ).json()) as StepResponse;
        state = {
          token: step.token,
          messages: [...state.messages, { role: "assistant", content: reply }, { role: "user", content: step.message }],
          done: step.done,
        };
      }
    }
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const lines = readFileSync(join(recording, "dialogues.jsonl"), "utf8").split("\n");
    expect(lines.pop()).toBe("");
    const records = lines.map((line) => DialogueRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(resets.length);
    expect(new Set(records.map((record) => record.id)).size).toBe(resets.length);
    expect(records.every((record) => record.condition === "train" && record.status === "done")).toBe(true);
  });
});
