/**
 * The cooperative SAGE/RLVER suite: `--scenarios sage:PATH` loads SAGE's and RLVER's profile files
 * directly, every reference agent answers in Chinese, and the cooperative rubric ranks the attuned
 * agent above the formulaic one. The profile files are read from ../shared/data (never copied into
 * the repository); the tests that need them are skipped, saying so, where they are absent.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../src/core/data-files.js";
import { DialogueRecordSchema } from "../src/core/dialogue.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { loadProfileScenarios, type SkippedProfileLine } from "../src/scenarios/sage-profiles.js";
import { lintScenario } from "../src/simulated-user/validate-suite.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const SHARED = join(packageRoot, "..", "shared", "data");
const WITH_FIRST_TALK = join(SHARED, "sage", "profiles", "simulator_profile_withfirsttalk.jsonl");
const WITHOUT_FIRST_TALK = join(SHARED, "sage", "profiles", "simulator_profile.jsonl");
const RLVER_TEST = join(SHARED, "rlver", "test_profile.jsonl");
const present = [WITH_FIRST_TALK, WITHOUT_FIRST_TALK, RLVER_TEST].every((file) => existsSync(file));
if (!present) console.warn(`sage-suite: SAGE/RLVER profile files not found under ${SHARED}; the tests that read them are skipped`);
const NEEDS_DATA = present ? "" : " [skipped: ../shared/data/sage and ../shared/data/rlver are absent]";

/** The profile lines as an independent reader sees them: split on "\n", one JSON object each. */
const rawProfiles = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { id: string; first_talk?: string; task: string; player: string; scene: string });

describe.skipIf(!present)(`SAGE/RLVER profile files as scenarios${NEEDS_DATA}`, () => {
  it("loads all 100 SAGE profiles with their first talk, persona, scene and hidden theme", async () => {
    const { scenarios, skipped, withoutFirstTalk } = loadProfileScenarios({ scheme: "sage", file: WITH_FIRST_TALK });
    const raw = rawProfiles(WITH_FIRST_TALK);
    expect(raw).toHaveLength(100);
    expect(skipped).toEqual([]);
    expect(withoutFirstTalk).toBe(0);
    expect(scenarios.map((scenario) => scenario.id)).toEqual(raw.map((profile) => `sage-${profile.id}`));
    for (const [index, scenario] of scenarios.entries()) {
      const profile = raw[index]!;
      expect(scenario).toMatchObject({
        type: "cooperative",
        preset: "sage",
        language: "zh",
        suite: "sage",
        opening: profile.first_talk,
        background: profile.scene.trim(),
      });
      expect(scenario.persona.description).toBe(profile.player.trim());
      expect(scenario.hiddenIntention.text).toBe(profile.task.trim());
      expect(lintScenario(scenario), scenario.id).toEqual([]);
    }
  });

  it("leaves the opening of the 100 profiles without first talk to the simulated user", async () => {
    const { scenarios, withoutFirstTalk } = loadProfileScenarios({ scheme: "sage", file: WITHOUT_FIRST_TALK });
    expect(scenarios).toHaveLength(100);
    expect(withoutFirstTalk).toBe(100);
    for (const scenario of scenarios) expect(scenario.opening).toBeUndefined();
  });

  it("reads RLVER's test profiles (SAGE's 100) with rlver- ids under rlver:PATH", async () => {
    const { scenarios } = loadProfileScenarios({ scheme: "rlver", file: RLVER_TEST });
    expect(scenarios).toHaveLength(100);
    expect(scenarios.every((scenario) => scenario.id.startsWith("rlver-"))).toBe(true);
  });

  it("aeb run --scenarios sage:PATH runs all 100 profiles offline for every reference agent, in Chinese, and attuned beats formulaic", async () => {
    const out = join(temporaryDirectory(), "sage");
    const path = relative(packageRoot, WITH_FIRST_TALK);
    const result = await runCli(["run", "--scenarios", `sage:${path}`, "--out", out, "--no-progress"], { cwd: packageRoot });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const records = readFileSync(join(out, "dialogues.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => DialogueRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(500);
    expect(records.filter((record) => record.status === "error")).toEqual([]);
    expect(new Set(records.map((record) => record.scenarioId)).size).toBe(100);
    for (const record of records) {
      expect(record).toMatchObject({ type: "cooperative", preset: "sage", opening: { emotion: 40 } });
      for (const turn of record.turns) {
        expect(turn.agent.text, record.id).toMatch(/\p{Script=Han}/u);
        expect(turn.agent.text, record.id).not.toMatch(/[A-Za-z]/);
      }
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
      conditions: Array<{ name: string; fs: { mean: number } }>;
    };
    const fs = Object.fromEntries(summary.conditions.map((condition) => [condition.name, condition.fs.mean]));
    expect(Object.keys(fs)).toEqual(["formulaic", "sycophant", "advice", "labeler", "attuned"]);
    expect(fs.attuned!).toBeGreaterThan(fs.formulaic! + 0.5);
    for (const agent of ["formulaic", "sycophant", "advice"]) expect(fs.attuned!, agent).toBeGreaterThan(fs[agent]!);
    expect(fs.attuned!).toBeGreaterThanOrEqual(fs.labeler!);
    // The formulaic replies are caught as formulaic comfort; the attuned ones never are.
    const flags = (agent: string) =>
      records.filter((record) => record.condition === agent).flatMap((record) => record.turns.flatMap((turn) => turn.user.flags));
    expect(flags("formulaic")).toContain("formulaic");
    expect(flags("attuned")).not.toContain("formulaic");
  }, 120_000);
});

describe("selectScenarios with a sage: path", () => {
  const file = join(temporaryDirectory("aeb-sage-select-"), "profiles.jsonl");
  const good = {
    id: "p1",
    player: "* 姓名：李明\n* 年龄：30岁",
    scene: "李明最近和同事闹了矛盾，同事在会上当众批评了他。",
    task: "你希望对方用心倾听你的情绪宣泄",
    first_talk: "唉，最近上班真累。",
  };
  writeFileSync(file, `${JSON.stringify(good)}\n{"id": "p2", "player": ""}\n`);

  it("fails on an invalid line, naming the file and line", async () => {
    expect(() => selectScenarios(parseRunConfig({ scenarios: { path: `sage:${file}` } }, "test"))).toThrow(
      new RegExp(`${file} line 2: invalid profile`),
    );
  });

  it("with skipInvalid, loads the rest and hands the skipped lines to the caller", async () => {
    const skipped: SkippedProfileLine[] = [];
    const scenarios = selectScenarios(parseRunConfig({ scenarios: { path: `sage:${file}`, skipInvalid: true } }, "test"), {
      onSkipped: (lines) => skipped.push(...lines),
    });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["sage-p1"]);
    expect(skipped).toEqual([
      expect.objectContaining({ file, line: 2, message: expect.stringContaining("player: player (persona) is empty") }),
    ]);
  });

  it("refuses skipInvalid for a YAML scenario path", async () => {
    expect(() => selectScenarios(parseRunConfig({ scenarios: { suite: "starter", skipInvalid: true } }, "test"))).toThrow(
      /--skip-invalid applies only to SAGE\/RLVER profile files/,
    );
  });
});
