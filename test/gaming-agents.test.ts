/**
 * The gaming agents (src/agents/gaming-agents.ts) try to farm the offline simulated user with the
 * lexicon's own phrases: every rewarded move in one reply, the same after a quote of the user, one
 * fixed template, a repeated reply, a keyword salad, and the situation-guessing agents of issue 19
 * (guess the type from cue words, send its paid phrase, then a quote of the user, an insult in
 * English or in Chinese, filler, nonsense, the type's punished act in plain words, capitulation
 * dressed as balance, or a keyword list). On the full suite each must score at least 0.3 FS below
 * the attuned reference agent overall and below it on every type, both through `runBenchmark` (as
 * `aeb run` does) and through the environment server's reward (its Environment class, in
 * process); and at least 0.3 below it under the server's default preset `rlver` and on the
 * `starter` and `classic` suites. Each suite is played once per driver and shared by every assertion.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Agent } from "../src/agents/agent.js";
import { GAMING_AGENT_IDS } from "../src/agents/gaming-agents.js";
import { createReferenceAgent, REFERENCE_AGENT_IDS } from "../src/agents/reference-agents.js";
import { DialogueRecordSchema, type DialogueRecord } from "../src/core/dialogue.js";
import { ADVERSARIAL_TYPES } from "../src/core/trajectory-type.js";
import type { Message } from "../src/server/api-schemas.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { Environment } from "../src/server/environment.js";
import { getPreset } from "../src/core/preset.js";
import { runEpisode } from "../src/episode/step.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { withGamingScores } from "../src/runner/doc-tables.js";
import { temporaryDirectory } from "./helpers/cli.js";

const MARGIN = 0.3;
const AGENTS = ["attuned", ...GAMING_AGENT_IDS] as const;
const SEED = 1;
const fullSuite = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "full" });

interface Scores {
  overall: number;
  byType: Record<string, number>;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The environment's final reward (emotion / 100 at the last step) of one agent on every full-suite scenario, by scenario id. */
async function playEnvironment(environment: Environment, agent: Agent): Promise<Map<string, number>> {
  const rewards = new Map<string, number>();
  for (const scenario of fullSuite) {
    const reset = await environment.reset({ scenarioId: scenario.id, seed: SEED, repeat: 0, preset: "scenario", rewardMode: "final" });
    let token = reset.token;
    let messages: Message[] = reset.messages;
    for (let turnIndex = 0; ; turnIndex += 1) {
      const { text } = await agent.reply({
        history: messages,
        language: scenario.language,
        turnIndex,
        seed: reset.episodeSeed,
        dialogueId: reset.episodeId,
      });
      const { response } = await environment.step({ token, messages, reply: text });
      messages = [...messages, { role: "assistant", content: text }, { role: "user", content: response.message }];
      token = response.token;
      if (response.done) {
        rewards.set(scenario.id, response.reward);
        break;
      }
    }
  }
  return rewards;
}

function scoresOf(values: ReadonlyMap<string, number>): Scores {
  const byType: Record<string, number> = {};
  for (const type of ADVERSARIAL_TYPES)
    byType[type] = mean(fullSuite.filter((scenario) => scenario.type === type).map((scenario) => values.get(scenario.id) as number));
  return { overall: mean([...values.values()]), byType };
}

describe("gaming agents on the full suite", async () => {
  const outDir = join(temporaryDirectory(), "gaming");
  const config = parseRunConfig(
    { seed: SEED, judges: { ecs: [], hid: [] }, conditions: AGENTS.map((id) => ({ name: id, agent: { kind: "reference", id } })) },
    "gaming-agents test",
  );
  const run = await runBenchmark({ config, outDir });
  const runScores = new Map<string, Scores>(
    run.summary.conditions.map((condition) => [
      condition.name,
      {
        overall: condition.fs.mean ?? Number.NaN,
        byType: Object.fromEntries(Object.entries(condition.byType).map(([type, value]) => [type, value.fsMean ?? Number.NaN])),
      },
    ]),
  );
  const records: DialogueRecord[] = readFileSync(join(outDir, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)));

  const environment = new Environment({
    scenarios: fullSuite,
    user: new OfflineSimulatedUser(),
    secret: "gaming-agents-secret-gaming-agents",
  });
  const environmentRewards = new Map<string, Map<string, number>>();
  for (const id of AGENTS) environmentRewards.set(id, await playEnvironment(environment, createReferenceAgent(id)));
  const environmentScores = new Map([...environmentRewards].map(([id, rewards]) => [id, scoresOf(rewards)]));

  const table = (scores: Map<string, Scores>) =>
    AGENTS.map(
      (id) =>
        `${id.padEnd(14)} ${scores.get(id)!.overall.toFixed(3)}  ${ADVERSARIAL_TYPES.map((type) => scores.get(id)!.byType[type]!.toFixed(2)).join(" ")}`,
    ).join("\n");
  console.log(`FS on the full suite (runBenchmark), overall then ${ADVERSARIAL_TYPES.join(" ")}:\n${table(runScores)}`);

  it("have the figures docs/offline-user.md quotes (regenerate with npm run docs:tables)", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "docs", "offline-user.md"), "utf8");
    expect(withGamingScores(doc, Object.fromEntries([...runScores].map(([id, scores]) => [id, scores.overall])))).toBe(doc);
  });

  it("are runnable like the reference agents, and none is among aeb run's default conditions", () => {
    expect(run.summary.conditions.map((condition) => condition.name)).toEqual([...AGENTS]);
    expect(records.filter((record) => record.status === "error")).toEqual([]);
    expect(parseRunConfig({}, "defaults").conditions.map((condition) => condition.name)).toEqual([...REFERENCE_AGENT_IDS]);
    expect(() => parseRunConfig({ conditions: [{ name: "x", agent: { kind: "reference", id: "no-such-agent" } }] }, "test")).toThrow(
      /agent\.id: "no-such-agent" is not allowed; one of formulaic, sycophant/,
    );
  });

  it.each(GAMING_AGENT_IDS)("%s scores at least 0.3 FS below attuned overall and below it on every type (runBenchmark)", (id) => {
    const attuned = runScores.get("attuned")!;
    const gaming = runScores.get(id)!;
    expect(gaming.overall).toBeLessThanOrEqual(attuned.overall - MARGIN);
    for (const type of ADVERSARIAL_TYPES) expect(gaming.byType[type], type).toBeLessThan(attuned.byType[type]!);
  });

  it.each(GAMING_AGENT_IDS)(
    "%s earns at least 0.3 less final reward than attuned overall and less on every type (environment server)",
    (id) => {
      const attuned = environmentScores.get("attuned")!;
      const gaming = environmentScores.get(id)!;
      expect(gaming.overall).toBeLessThanOrEqual(attuned.overall - MARGIN);
      for (const type of ADVERSARIAL_TYPES) expect(gaming.byType[type], type).toBeLessThan(attuned.byType[type]!);
    },
  );

  it("the environment pays each dialogue exactly the FS the runner records", () => {
    for (const record of records) expect(environmentRewards.get(record.condition)!.get(record.scenarioId), record.id).toBe(record.final.fs);
  });

  // The reader is a classifier, so a reflection of the user's words is now and then heard as a move
  // that does not fit or as harm; the attuned agent must stay almost clear of the fit rules.
  it("attuned almost never trips a fit rule: off-key moves, scattershot replies, keyword lists, repeats or harm in under 2% of its turns", () => {
    const attunedTurns = records
      .filter((record) => record.condition === "attuned")
      .flatMap((record) => record.turns.map((turn) => ({ record, turn })));
    const tripped = attunedTurns
      .flatMap(({ record, turn }) =>
        ((turn.user.appraisal?.items ?? []) as Array<{ id: string }>).map((item) => `${record.id}#${turn.index}: ${item.id}`),
      )
      .filter((entry) => /: (off_key|scattershot|incoherent|repeats_itself|contempt|dismisses)$/.test(entry));
    console.log(`attuned tripped a fit rule in ${tripped.length} of ${attunedTurns.length} turns: ${tripped.join("; ")}`);
    expect(tripped.filter((entry) => /: (scattershot|incoherent|repeats_itself)$/.test(entry))).toEqual([]);
    expect(tripped.length).toBeLessThan(0.02 * attunedTurns.length);
  });
});

/** Mean FS of each agent over a suite under a preset, one dialogue per scenario (seed 1), through the episode loop. */
async function meanFsOn(suite: string, presetName: string | null): Promise<Map<string, number>> {
  const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite }).filter(
    (scenario) => scenario.type !== "cooperative",
  );
  const user = new OfflineSimulatedUser();
  const means = new Map<string, number>();
  for (const id of AGENTS) {
    const values: number[] = [];
    for (const scenario of scenarios) {
      const preset = getPreset(presetName ?? scenario.preset);
      const record = await runEpisode({
        dialogueId: `${id}/${scenario.id}`,
        condition: id,
        scenario,
        preset,
        repeat: 0,
        seed: SEED,
        agent: createReferenceAgent(id),
        user,
      });
      values.push(record.final.fs);
    }
    means.set(id, mean(values));
  }
  return means;
}

describe.each([
  ["full", "rlver"],
  ["starter", null],
  ["classic", null],
] as const)("gaming agents on the %s suite (preset %s, or the scenarios' own)", async (suite, presetName) => {
  const means = await meanFsOn(suite, presetName);
  console.log(
    `FS on ${suite} (${presetName ?? "scenario presets"}): ${AGENTS.map((id) => `${id} ${means.get(id)!.toFixed(3)}`).join(", ")}`,
  );
  it.each(GAMING_AGENT_IDS)("%s scores at least 0.3 FS below attuned", (id) => {
    expect(means.get(id)!).toBeLessThanOrEqual(means.get("attuned")! - MARGIN);
  });
});
