/**
 * `aeb serve` with an LLM simulated user: the per-endpoint cap follows the steps the server expects
 * in flight, and a configured cap that holds steps back is warned about and counted.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResetResponse } from "../src/server/api-schemas.js";
import { spawnCli, temporaryDirectory } from "./helpers/cli.js";
import { useMockLlm } from "./helpers/mock-llm.js";

const mockLlm = useMockLlm();
const running: Array<ReturnType<typeof spawnCli>> = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function serve(config: string, args: string[]) {
  const path = join(temporaryDirectory("aeb-capacity-"), "simulator.yaml");
  writeFileSync(path, config);
  const child = spawnCli(["serve", "--config", path, "--suite", "full", "--port", "0", "--log-level", "warn", ...args], {
    env: { AEB_SERVER_SECRET: "capacity-test-secret-capacity" },
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`aeb serve exited with ${code}: ${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

const json = { "content-type": "application/json" };

describe("aeb serve with an LLM simulated user", () => {
  it("derives the simulator's cap from --steps-in-flight when the config sets none", async () => {
    const mock = await mockLlm();
    const server = serve(`simulator:\n  kind: llm\n  endpoint: { baseUrl: "${mock.url}", model: sim }\n`, ["--steps-in-flight", "48"]);
    await server.url;
    expect(server.stderr()).toContain("the simulator may make 48 model calls at once per replica, for 48 steps in flight");
    expect(server.stderr()).not.toContain("warning");
  });

  it("keeps a configured cap below the steps in flight, warns at start and when steps wait, and counts the waits", async () => {
    const mock = await mockLlm({ latency: 150 });
    const server = serve(`simulator:\n  kind: llm\n  endpoint: { baseUrl: "${mock.url}", model: sim, maxConcurrencyPerEndpoint: 1 }\n`, [
      "--steps-in-flight",
      "3",
    ]);
    const url = await server.url;
    expect(server.stderr()).toContain(
      "maxConcurrencyPerEndpoint (1 per replica, 1 replica: 1 calls at once) is below the 3 steps expected in flight",
    );
    const resets = await Promise.all(
      [0, 1, 2].map(
        async (seed) =>
          (await (
            await fetch(`${url}/v1/reset`, { method: "POST", headers: json, body: JSON.stringify({ seed }) })
          ).json()) as ResetResponse,
      ),
    );
    const steps = await Promise.all(
      resets.map((reset) =>
        fetch(`${url}/v1/step`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ token: reset.token, messages: reset.messages, reply: "What happened then?" }),
        }),
      ),
    );
    expect(steps.map((step) => step.status)).toEqual([200, 200, 200]);
    expect(mock.maxConcurrent).toBe(1);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const queued = Number(/^aeb_env_simulator_calls_queued_total (\d+)/m.exec(metrics)?.[1]);
    expect(queued).toBeGreaterThanOrEqual(2);
    expect(server.stderr()).toContain("simulator calls are waiting for a free slot: 1 per replica are in flight");
  });
});
