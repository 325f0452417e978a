/**
 * The verl integration's Python test (integrations/verl/tests), run against a live `aeb serve` on an
 * ephemeral loopback port: full episodes through the verl interaction class give the same emotions
 * and rewards as `aeb run` for the same scenarios, seed and agent replies.
 */
import { spawn, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { CLI } from "./helpers/cli.js";

const repository = resolve(import.meta.dirname, "..");
const scenarios = join(repository, "scenarios", "starter");
const python = spawnSync("python3", ["--version"]).status === 0;
const token = "verl-test-token";

const server = python
  ? spawn(process.execPath, [CLI, "serve", "--scenarios", scenarios, "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"], {
      env: { ...process.env, AEB_SERVER_SECRET: "verl-test-secret-verl-test-secret", AEB_SERVER_TOKEN: token },
      stdio: ["ignore", "pipe", "inherit"],
    })
  : undefined;

afterAll(() => {
  server?.kill("SIGTERM");
});

function listening(): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let output = "";
    server!.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolveUrl(match[1]!);
    });
    server!.once("exit", (code) => reject(new Error(`aeb serve exited (${code})`)));
  });
}

it.skipIf(!python)("the verl interaction replays aeb run's episodes with identical emotions and rewards (python3 -m unittest)", async () => {
  const url = await listening();
  const result = await new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn("python3", ["-m", "unittest", "discover", "-s", join(repository, "integrations", "verl", "tests"), "-v"], {
      env: { ...process.env, AEB_SERVER_URL: url, AEB_SERVER_TOKEN: token, AEB_CLI: CLI, AEB_SCENARIOS: scenarios, AEB_TEST_SEED: "7", PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => done({ code, output }));
  });
  expect(result.output).toMatch(/test_every_dialogue_of_the_run_replays_identically .* ok/);
  expect(result.code, result.output).toBe(0);
}, 180_000);
