/**
 * The verl integration (integrations/verl, Python, standard library only), end to end:
 *
 * - its unittest suite runs against a live `aeb serve` on an ephemeral loopback port and the
 *   dialogues of an `aeb run`, played here in-process: verl's tool agent loop driving the interaction
 *   (verl's real BaseInteraction from ../shared/reference/) replays every dialogue with the run's
 *   rewards, forty episodes survive a fault-injecting proxy, the client's retries, the dataset
 *   builder and the reward functions;
 * - the trainer and interaction configs `python3 -m aeb_verl.prepare` wrote there are read as YAML
 *   and checked for what verl needs (and, where the reference copy is present, against the keys
 *   verl's rollout config defines);
 * - the Python reply split and the benchmark's splitThink agree on every shared case.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { splitThink } from "../src/agents/think-format.js";
import { runEpisode } from "../src/episode/step.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { planRun } from "../src/runner/run-plan.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { CLI, temporaryDirectory } from "./helpers/cli.js";

const repository = resolve(import.meta.dirname, "..");
const verlIntegration = join(repository, "integrations", "verl");
const scenarios = join(repository, "scenarios", "starter");
const reference = resolve(repository, "..", "shared", "reference", "verl-b178a3c");
const referencePresent = existsSync(join(reference, "verl", "interactions", "base.py"));
const python = spawnSync("python3", ["--version"]).status === 0;
const token = "verl-test-token";
const seed = 7;
const work = temporaryDirectory("aeb-verl-");
const prepared = join(work, "prepared");

const server = python
  ? spawn(process.execPath, [CLI, "serve", "--scenarios", scenarios, "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"], {
      env: { ...process.env, AEB_SERVER_SECRET: "verl-test-secret-verl-test-secret", AEB_SERVER_TOKEN: token },
      stdio: ["ignore", "pipe", "inherit"],
    })
  : undefined;

let url = "";
let unittest: { code: number | null; output: string } | undefined;

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

function pythonUnittest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("python3", ["-m", "unittest", "discover", "-s", join(verlIntegration, "tests"), "-v"], {
      env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => done({ code, output }));
  });
}

/**
 * The dialogues `aeb run --scenarios scenarios/starter --seed 7` records, played as it plays them
 * (its plan, its episode loop, the five reference agents, the offline user), without the reports.
 */
async function playRun(path: string): Promise<void> {
  const config = parseRunConfig({ seed, scenarios: { path: scenarios } }, "verl test");
  const user = new OfflineSimulatedUser();
  const records = await Promise.all(
    planRun(config.conditions, selectScenarios(config), config.repeats, config.seed).map((task) => {
      const agent = task.condition.agent;
      if (agent.kind !== "reference") throw new Error("the default conditions are the reference agents");
      return runEpisode({ dialogueId: task.id, condition: task.condition.name, scenario: task.scenario, preset: task.preset, repeat: task.repeat, seed: task.seed, agent: createReferenceAgent(agent.id), user });
    }),
  );
  writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
}

beforeAll(async () => {
  if (!python) return;
  // The server starts while the run's dialogues play here (the reference the Python tests replay).
  const dialogues = join(work, "dialogues.jsonl");
  [url] = await Promise.all([listening(), playRun(dialogues)]);
  unittest = await pythonUnittest({
    AEB_SERVER_URL: url,
    AEB_SERVER_TOKEN: token,
    AEB_RUN_DIALOGUES: dialogues,
    AEB_RUN_SEED: String(seed),
    AEB_PREPARE_DIR: prepared,
    AEB_CLI: CLI,
    AEB_SCENARIOS: scenarios,
    AEB_VERL_REFERENCE: reference,
  });
}, 180_000);

afterAll(() => {
  server?.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

it.skipIf(!python)("the verl integration's Python tests pass: replay through verl's tool agent loop, a flaky network, the client, the dataset (python3 -m unittest)", () => {
  const { code, output } = unittest!;
  // On failure the whole unittest report (tracebacks included) goes to the log, not a truncated diff.
  if (code !== 0) console.error(output);
  expect(code).toBe(0);
  for (const name of [
    "test_every_dialogue_of_the_run_replays_with_identical_rewards_in_final_mode",
    "test_forty_episodes_complete_with_the_same_rewards_through_the_fault_proxy",
    "test_the_tool_agent_loop_drives_interactions_as_restated",
    "test_the_reward_function_sums_the_turn_rewards_from_any_verl_version",
  ]) {
    // With the reference copy present, the verl tests run; without it they skip, and say so.
    const verdict = referencePresent || name.includes("reward_function") ? "ok" : "skipped";
    expect(output, name).toMatch(new RegExp(`${name} .*\\.\\.\\. ${verdict}`));
  }
});

it.skipIf(!python)("the prepared trainer and interaction configs hold what verl reads, with absolute paths", () => {
  const trainer = parse(readFileSync(join(prepared, "trainer.yaml"), "utf8"));
  const interaction = parse(readFileSync(join(prepared, "interaction.yaml"), "utf8"));
  const manifest = JSON.parse(readFileSync(join(prepared, "manifest.json"), "utf8"));
  const existingFile = (path: unknown) => typeof path === "string" && isAbsolute(path) && statSync(path).isFile();

  expect(trainer.defaults).toEqual(["ppo_trainer", "_self_"]);
  expect(trainer.hydra.searchpath).toEqual(["file://verl/trainer/config"]);
  expect(existingFile(trainer.data.train_files) && existingFile(trainer.data.val_files)).toBe(true);
  expect(trainer.data.train_files.endsWith(".json") || trainer.data.train_files.endsWith(".parquet")).toBe(true);
  expect(trainer.data.return_raw_chat).toBe(true);
  const rollout = trainer.actor_rollout_ref.rollout;
  expect(rollout.multi_turn.enable).toBe(true);
  expect(existingFile(rollout.multi_turn.interaction_config_path)).toBe(true);
  expect(rollout.multi_turn.max_assistant_turns).toBe(manifest.episode.max_turns + 1);
  expect(rollout.multi_turn.max_user_turns).toBe(manifest.episode.max_turns);
  expect(rollout.agent.default_agent_loop).toBe("tool_agent");
  expect(existingFile(trainer.custom_reward_function.path)).toBe(true);
  expect(trainer.custom_reward_function.name).toBe("compute_score_with_marks");
  expect(readFileSync(trainer.custom_reward_function.path, "utf8")).toContain("def compute_score_with_marks(");
  expect(trainer.reward_model.use_reward_loop).toBe(true);
  expect(trainer.algorithm.adv_estimator).toBe("grpo");

  expect(interaction.interaction).toHaveLength(1);
  const [entry] = interaction.interaction;
  expect(entry.class_name).toBe("aeb_verl.interaction.AebInteraction");
  expect(entry.config.base_urls).toEqual([url]);
  const rows = readFileSync(trainer.data.train_files, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  expect(new Set(rows.map((row) => row.extra_info.interaction_kwargs.name))).toEqual(new Set([entry.name]));
  expect(new Set(rows.map((row) => row.agent_name))).toEqual(new Set(["tool_agent"]));
  expect(JSON.stringify(interaction) + readFileSync(join(prepared, "launch.sh"), "utf8")).not.toContain(token);
});

it.skipIf(!python || !referencePresent)("every rollout key the trainer config sets exists in verl's rollout config", () => {
  const verlRollout = parse(readFileSync(join(reference, "verl", "trainer", "config", "rollout", "rollout.yaml"), "utf8"));
  const ours = parse(readFileSync(join(prepared, "trainer.yaml"), "utf8")).actor_rollout_ref.rollout;
  const paths = (value: unknown, prefix: string): string[] =>
    value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value).flatMap(([key, child]) => paths(child, prefix ? `${prefix}.${key}` : key)) : [prefix];
  const known = new Set(paths(verlRollout, ""));
  expect(paths(ours, "").filter((path) => !known.has(path))).toEqual([]);
});

it("the Python reply split shows the user exactly what the benchmark's splitThink shows", () => {
  const cases = JSON.parse(readFileSync(join(verlIntegration, "tests", "fixtures", "visible-replies.json"), "utf8")) as Array<{ completion: string; visible: string; why: string }>;
  expect(cases.length).toBeGreaterThanOrEqual(10);
  for (const { completion, visible, why } of cases) expect(splitThink(completion).visible, why).toBe(visible);
});
