/**
 * The sources' loops on their own profile files, in-process through runBenchmark with the offline
 * user: SAGE's profiles under the sage preset (at most 9 appraised replies), RLVER's training
 * profiles (no first_talk) under the rlver preset, opened by the simulated user (planned by the
 * runner and played by runEpisode, without the reports). The files are
 * read from ../shared/data (never copied); the tests are skipped, saying so, where absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../src/core/data-files.js";
import { DialogueRecordSchema, isAppraised, type DialogueRecord } from "../src/core/dialogue.js";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { runEpisode } from "../src/episode/step.js";
import { runBenchmark, selectScenarios } from "../src/runner/run-benchmark.js";
import { planRun } from "../src/runner/run-plan.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { temporaryDirectory } from "./helpers/cli.js";

const SHARED = join(packageRoot, "..", "shared", "data");
const WITH_FIRST_TALK = join(SHARED, "sage", "profiles", "simulator_profile_withfirsttalk.jsonl");
const RLVER_TRAIN = join(SHARED, "rlver", "train_profile.jsonl");
const present = existsSync(WITH_FIRST_TALK) && existsSync(RLVER_TRAIN);
if (!present) console.warn(`profile-loops: the SAGE/RLVER profile files are not under ${SHARED}; these tests are skipped`);
const SKIPPED = present ? "" : " [skipped: ../shared/data is absent]";

/** The first `count` profile ids of a file, as scenario ids of the scheme. */
const firstIds = (file: string, scheme: string, count: number) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, count)
    .map((line) => `${scheme}-${(JSON.parse(line) as { id: string }).id.toLowerCase()}`);

async function run(path: string, ids: string[], extra: Record<string, unknown> = {}): Promise<DialogueRecord[]> {
  const outDir = temporaryDirectory("aeb-loops-");
  await runBenchmark({ config: parseRunConfig({ scenarios: { path, ids, ...extra } }, "test"), outDir });
  return readFileSync(join(outDir, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)));
}

describe.skipIf(!present)(`SAGE's and RLVER's profiles under their own loops${SKIPPED}`, () => {
  it("aeb run --scenarios sage:simulator_profile_withfirsttalk.jsonl records at most 9 appraised replies per dialogue", async () => {
    const records = await run(`sage:${WITH_FIRST_TALK}`, firstIds(WITH_FIRST_TALK, "sage", 8));
    expect(records).toHaveLength(40);
    for (const record of records) {
      expect(record.status, record.id).toBe("done");
      expect(record.preset).toBe("sage");
      const appraised = record.turns.filter(isAppraised).length;
      expect(appraised, record.id).toBeLessThanOrEqual(9);
      // At the limit SAGE's 10th reply is recorded unappraised; an earlier end leaves every reply appraised.
      if (record.endReason === "max_turns")
        expect([record.turns.length, appraised, record.turns.at(-1)?.user.appraised], record.id).toEqual([10, 9, false]);
      else expect(record.turns.length, record.id).toBe(appraised);
    }
    expect(records.some((record) => record.endReason === "max_turns")).toBe(true);
  });

  it("rlver:train_profile.jsonl plays RLVER's loop, each dialogue opened by the simulated user from its own profile", async () => {
    const ids = firstIds(RLVER_TRAIN, "rlver", 4);
    const config = parseRunConfig({ seed: 3, scenarios: { path: `rlver:${RLVER_TRAIN}`, ids } }, "test");
    // The runner's plan (seeds per scenario and repeat, shared by the conditions), played as aeb run plays it.
    const user = new OfflineSimulatedUser();
    const records = await Promise.all(
      planRun(config.conditions, selectScenarios(config), config.repeats, config.seed).map((task) =>
        runEpisode({
          dialogueId: task.id,
          condition: task.condition.name,
          scenario: task.scenario,
          preset: task.preset,
          repeat: task.repeat,
          seed: task.seed,
          agent: createReferenceAgent(task.condition.name),
          user,
        }),
      ),
    );
    expect(records).toHaveLength(20);
    for (const record of records) {
      expect(record).toMatchObject({ status: "done", preset: "rlver", opening: { emotion: 30, source: "simulated_user" } });
      expect(record.opening.text, record.id).toMatch(/我/u);
      expect(record.turns.filter(isAppraised).length, record.id).toBeLessThanOrEqual(9);
    }
    const byScenario = new Map<string, Set<string>>();
    for (const record of records)
      byScenario.set(record.scenarioId, (byScenario.get(record.scenarioId) ?? new Set()).add(record.opening.text));
    // Every condition meets the same opening for a scenario (common random numbers), and profiles open differently.
    expect([...byScenario.values()].every((openings) => openings.size === 1)).toBe(true);
    expect(new Set([...byScenario.values()].map((openings) => [...openings][0])).size).toBe(ids.length);
  });

  it("scenarios.preset (aeb run --preset) plays the same profiles under another loop", () => {
    const ids = firstIds(WITH_FIRST_TALK, "sage", 2);
    const scenarios = selectScenarios(parseRunConfig({ scenarios: { path: `sage:${WITH_FIRST_TALK}`, ids, preset: "aeb-plus" } }, "test"));
    expect(scenarios.map((scenario) => [scenario.id, scenario.preset])).toEqual(ids.map((id) => [id, "aeb-plus"]));
    expect(() => parseRunConfig({ scenarios: { preset: "paper" } }, "test")).toThrow(/scenarios\.preset/);
  });
});
