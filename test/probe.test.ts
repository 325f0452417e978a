/**
 * `aeb probe` (src/probe/, docs/probe.md): the reward-optimum probe. In-process CLI runs at small
 * budgets on the starter suite against the offline user: the same seed gives the same probe.json
 * byte for byte; a probe stopped after N evaluations (as a kill would leave it) resumes to the
 * same result, and --force restarts cleanly; --require/--exclude hold in every reply the search
 * plays; pool files, budgets and constraints are refused with errors naming the file and field.
 * The last test is issue 19's target: constrained to a harmful fragment in every reply, the best
 * the search finds stays at least 0.3 FS below the attuned reference on held-out seeds.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRng } from "../src/core/random.js";
import { lexiconFragments, loadPools, hasTag, type FragmentPool } from "../src/probe/pools.js";
import { mutatePolicy, randomPolicy, type PolicySpace } from "../src/probe/policy.js";
import { usablePools } from "../src/probe/constraints.js";
import { ProbeResultSchema, type ProbeResult } from "../src/probe/probe-schema.js";
import { TARGET_GAP } from "../src/probe/probe-report.js";
import { runProbe } from "../src/probe/run-probe.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { Appraisal, AppraisalInput, SimulatedUser } from "../src/simulated-user/simulated-user.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";
import { useMockLlm } from "./helpers/mock-llm.js";

const mock = useMockLlm();

/** A small probe: two types of the starter suite, one seed each way, a dozen evaluations. */
const SMALL = [
  "--suite",
  "starter",
  "--types",
  "escalation,gaslighting",
  "--budget",
  "12",
  "--patience",
  "5",
  "--train-seeds",
  "1",
  "--heldout-seeds",
  "1",
  "--no-progress",
];

function readResult(dir: string): ProbeResult {
  return ProbeResultSchema.parse(JSON.parse(readFileSync(join(dir, "probe.json"), "utf8")));
}

function poolFile(text: string): string {
  const path = join(temporaryDirectory("aeb-probe-pool-"), "pool.yaml");
  writeFileSync(path, text);
  return path;
}

describe("aeb probe", () => {
  it("gives the same probe.json, report and chart for the same seed, and another for another seed", async () => {
    const [first, second, other] = [temporaryDirectory(), temporaryDirectory(), temporaryDirectory()];
    for (const [dir, seed] of [
      [first, "7"],
      [second, "7"],
      [other, "8"],
    ] as const) {
      const result = await runCli(["probe", "--out", dir, "--seed", seed, "--require", "harmful", ...SMALL]);
      expect(result.code).toBe(0);
      // stderr: one line per finished type and nothing else (no warning, no progress with --no-progress)
      expect(
        result.stderr
          .trimEnd()
          .split("\n")
          .map((line) => line.replace(/-?\d+(\.\d+)?/g, "N")),
      ).toEqual([
        "escalation: best N on training seeds; held-out best N vs attuned N (gap N)",
        "gaslighting: best N on training seeds; held-out best N vs attuned N (gap N)",
      ]);
    }
    for (const file of ["probe.json", "probe.md", "learning-curve.svg"])
      expect(readFileSync(join(second, file), "utf8")).toBe(readFileSync(join(first, file), "utf8"));
    expect(readFileSync(join(other, "probe.json"), "utf8")).not.toBe(readFileSync(join(first, "probe.json"), "utf8"));

    const result = readResult(first);
    expect(result.status).toBe("complete");
    expect(result.types.map((type) => type.type)).toEqual(["escalation", "gaslighting"]);
    for (const type of result.types) {
      expect(type.evaluations).toBe(12);
      expect(type.curve).toHaveLength(12);
      // best-so-far never falls, and its last point is the best training return
      expect(type.curve.every((value, index) => index === 0 || value >= (type.curve[index - 1] as number))).toBe(true);
      expect(type.curve.at(-1)).toBe(type.trainBest);
      expect(type.heldOut?.dialogues).toHaveLength(2);
      expect(type.heldOut?.gap).toBeCloseTo((type.heldOut?.attuned ?? 0) - (type.heldOut?.best ?? 0), 12);
      expect(type.heldOut?.bestDialogue.turns.length).toBeGreaterThan(0);
    }
    const markdown = readFileSync(join(first, "probe.md"), "utf8");
    expect(markdown).toContain("| escalation | done | 12 |");
    expect(markdown).toContain(result.types[0]?.heldOut?.bestDialogue.turns[0]?.reply.slice(0, 20));
    const svg = readFileSync(join(first, "learning-curve.svg"), "utf8");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain("escalation");
  });

  it("resumes a probe stopped after N evaluations to the result of an uninterrupted one, and --force restarts it cleanly", async () => {
    const [whole, stopped] = [temporaryDirectory(), temporaryDirectory()];
    expect((await runCli(["probe", "--out", whole, ...SMALL])).code).toBe(0);

    // Stopped in the first type's search: the checkpoint holds its best so far, the reports say partial.
    const first = await runCli(["probe", "--out", stopped, ...SMALL, "--stop-after", "5"]);
    expect(first.code).toBe(3);
    expect(first.stderr).toMatch(/resume with: aeb probe --out \S+ --suite starter/);
    expect(first.stderr).not.toMatch(/resume with:.*--stop-after/);
    const partial = readResult(stopped);
    expect(partial.status).toBe("partial");
    expect(partial.types.map((type) => [type.type, type.status, type.evaluations])).toEqual([
      ["escalation", "searching", 5],
      ["gaslighting", "pending", 0],
    ]);
    expect(partial.types[0]?.curve).toEqual(readResult(whole).types[0]?.curve.slice(0, 5));

    // A second stop lands in the second type; the third run finishes.
    expect((await runCli(["probe", "--out", stopped, ...SMALL, "--stop-after", "10"])).code).toBe(3);
    expect(readResult(stopped).types.map((type) => type.evaluations)).toEqual([12, 3]);
    const resumed = await runCli(["probe", "--out", stopped, ...SMALL]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${stopped}: 15 evaluation(s) of 2 type(s) already done`);
    expect(readFileSync(join(stopped, "probe.json"), "utf8")).toBe(readFileSync(join(whole, "probe.json"), "utf8"));

    // Another definition in the same directory is refused, naming what changed; --force starts again.
    const refused = await runCli(["probe", "--out", stopped, ...SMALL, "--budget", "6"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("holds a probe with another definition (changed: budget); rerun with --force");
    const forced = await runCli(["probe", "--out", stopped, ...SMALL, "--budget", "6", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).not.toContain("resuming");
    expect(readResult(stopped).types.map((type) => type.evaluations)).toEqual([6, 6]);
  });

  it("holds --require and --exclude in every reply the search and the held-out check play", async () => {
    const pools = loadPools();
    const harmfulTexts = pools
      .filter((pool) => hasTag(pool, "harmful"))
      .flatMap((pool) => [
        ...Object.values(pool.fragments ?? {}).flat(),
        ...Object.values(pool.byType ?? {}).flatMap((byLanguage) => Object.values(byLanguage).flat()),
      ]);
    const lexiconTexts = lexiconFragments("en");
    const probeReplies: string[] = [];
    const offline = new OfflineSimulatedUser();
    /** The offline user, noting every reply of the search's policies it appraises (attuned's dialogues have ids of their own). */
    const recording: SimulatedUser = {
      id: "offline",
      appraise: (input: AppraisalInput): Promise<Appraisal> => {
        if (input.dialogueId.startsWith("probe:")) probeReplies.push(input.agentReply);
        return offline.appraise(input);
      },
      reply: (input) => offline.reply(input),
    };
    const scenarios = selectScenarios(
      parseRunConfig({ scenarios: { suite: "starter", types: ["mood_reversal", "validation_manipulation"] } }, "test"),
    );
    const { result } = await runProbe({
      scenarios,
      user: recording,
      userDefinition: { simulator: { kind: "offline" }, aebVersion: "test", dataFiles: "test" },
      pools,
      constraints: { require: ["harmful"], exclude: ["lexicon"] },
      seed: 3,
      budget: 15,
      patience: 6,
      maxFragments: 3,
      trainSeeds: 1,
      heldoutSeeds: 1,
      concurrency: 2,
      outDir: temporaryDirectory(),
    });
    // 2 types x (15 evaluations + 1 held-out check) x 2 scenarios, each dialogue at least 2 turns
    expect(probeReplies.length).toBeGreaterThanOrEqual(2 * 16 * 2 * 2);
    for (const reply of probeReplies) {
      expect(
        harmfulTexts.some((text) => reply.includes(text)),
        reply,
      ).toBe(true);
      const unquoted = reply.replace(/“[^”]*”/gu, "");
      expect(
        lexiconTexts.filter((text) => unquoted.includes(text)),
        reply,
      ).toEqual([]);
    }
    for (const type of result.types) {
      for (const template of type.bestTemplates) {
        const tags = template.map((fragment) => pools.find((pool) => pool.name === fragment.pool)?.tags ?? []);
        expect(tags.some((poolTags) => poolTags.includes("harmful"))).toBe(true);
        expect(tags.some((poolTags) => poolTags.includes("lexicon"))).toBe(false);
      }
      for (const turn of type.heldOut?.bestDialogue.turns ?? [])
        expect(
          harmfulTexts.some((text) => turn.reply.includes(text)),
          turn.reply,
        ).toBe(true);
    }
  });

  it("plays an LLM user through its endpoint, as configured for aeb run", async () => {
    const server = await mock();
    const config = join(temporaryDirectory(), "llm-user.yaml");
    const endpoint = {
      baseUrl: server.url,
      model: "sim",
      maxRetries: 1,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 5,
      timeoutMs: 5000,
      idleTimeoutMs: 2000,
    };
    writeFileSync(config, JSON.stringify({ simulator: { kind: "llm", endpoint } }));
    const dir = temporaryDirectory();
    const result = await runCli([
      "probe",
      "--out",
      dir,
      "--config",
      config,
      "--suite",
      "starter",
      "--types",
      "escalation",
      "--budget",
      "2",
      "--train-seeds",
      "1",
      "--heldout-seeds",
      "1",
      "--no-progress",
    ]);
    expect(result.stderr).toMatch(/^escalation: best /);
    expect(result.code).toBe(0);
    const probe = readResult(dir);
    expect(probe.definition.user).not.toBe("offline");
    expect(probe.types[0]?.evaluations).toBe(2);
    // The model appraised every dialogue: 2 evaluations, attuned on training, best and attuned held out; 2 scenarios each, 2+ turns.
    expect(probe.types[0]?.heldOut?.dialogues).toHaveLength(2);
    expect(server.chatRequests().length).toBeGreaterThanOrEqual(5 * 2 * 2);
  });

  it("builds only policies that carry every required tag and no excluded one, whatever the mutations", () => {
    const pools = loadPools();
    const constraints = { require: ["harmful" as const, "user" as const], exclude: ["lexicon" as const, "random" as const] };
    const space: PolicySpace = { pools: usablePools(pools, constraints, "escalation", ["en"], 3), constraints, maxFragments: 3, turns: 8 };
    expect(space.pools.map((pool) => pool.name)).not.toContain("lexicon");
    const tagsOf = (name: string): readonly string[] => (pools.find((pool) => pool.name === name) as FragmentPool).tags;
    const rng = createRng(11);
    let policy = randomPolicy(space, rng);
    for (let round = 0; round < 500; round += 1) {
      policy = round % 50 === 0 ? randomPolicy(space, rng) : mutatePolicy(space, policy, rng);
      for (const template of policy.turns) {
        expect(template.length).toBeGreaterThanOrEqual(1);
        expect(template.length).toBeLessThanOrEqual(3);
        const tags = template.flatMap((gene) => tagsOf(gene.pool));
        expect(tags).toContain("harmful");
        expect(tags).toContain("user");
        expect(tags).not.toContain("lexicon");
        expect(tags).not.toContain("random");
      }
    }
  });

  describe("refuses bad input, naming the file, flag or field", () => {
    const out = () => temporaryDirectory();

    it("a pool file with an unknown tag", async () => {
      const file = poolFile('name: mine\ndescription: my lines\ntags: [harmful, rude]\nfragments:\n  en: ["Go away."]\n');
      const result = await runCli(["probe", "--out", out(), "--pool", file, ...SMALL]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`pool file ${file} is invalid:`);
      expect(result.stderr).toContain(
        'tags.[1]: unknown pool tag "rude" (known: lexicon, generic, harmful, punished, paraphrase, user, random)',
      );
    });

    it("an empty pool, in each way a pool can be empty", async () => {
      const cases: Array<[string, string]> = [
        ["name: mine\ndescription: d\ntags: [generic]\nfragments:\n  en: []\n", "fragments.en: empty pool: give at least one fragment"],
        [
          "name: mine\ndescription: d\ntags: [generic]\nfragments: {}\n",
          "fragments: empty pool: give the fragments of at least one language",
        ],
        [
          "name: mine\ndescription: d\ntags: [generic]\n",
          "fragments: empty pool: a pool of source `fragments` needs `fragments` or `byType`",
        ],
        [
          "name: mine\ndescription: d\ntags: [punished]\nbyType:\n  escalation:\n    en: []\n",
          "byType.escalation.en: empty pool: give at least one fragment",
        ],
        ['name: mine\ndescription: d\ntags: [generic]\nfragments:\n  en: ["  "]\n', "fragments.en.[0]: a fragment is empty"],
      ];
      for (const [text, message] of cases) {
        const file = poolFile(text);
        const result = await runCli(["probe", "--out", out(), "--pool", file, ...SMALL]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`pool file ${file} is invalid:`);
        expect(result.stderr).toContain(message);
      }
    });

    it("a pool file that cannot be read or parsed, and a pool name used twice", async () => {
      const missing = join(temporaryDirectory(), "nope.yaml");
      expect((await runCli(["probe", "--out", out(), "--pool", missing, ...SMALL])).stderr).toContain(`cannot read pool file ${missing}`);
      const broken = poolFile("name: [unclosed\n");
      expect((await runCli(["probe", "--out", out(), "--pool", broken, ...SMALL])).stderr).toContain(
        `pool file ${broken} is not valid YAML`,
      );
      const twice = poolFile('name: harmful\ndescription: d\ntags: [harmful]\nfragments:\n  en: ["Go away."]\n');
      expect((await runCli(["probe", "--out", out(), "--pool", twice, ...SMALL])).stderr).toContain(
        `pool file ${twice}: name "harmful" is already used by`,
      );
    });

    it("a budget of 0, or one that is not an integer", async () => {
      for (const budget of ["0", "1.5", "many"]) {
        const result = await runCli(["probe", "--out", out(), ...SMALL, "--budget", budget]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `option '--budget <n>' argument '${budget}' is invalid. expected a positive integer, got "${budget}"`,
        );
      }
      expect((await runCli(["probe", "--out", out(), ...SMALL, "--patience", "0"])).stderr).toContain(
        "option '--patience <n>' argument '0' is invalid",
      );
    });

    it("an unknown tag in a constraint, and constraints no pool can satisfy", async () => {
      const unknown = await runCli(["probe", "--out", out(), ...SMALL, "--require", "harmfull"]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(
        '--require: unknown pool tag "harmfull" (known: lexicon, generic, harmful, punished, paraphrase, user, random)',
      );
      expect((await runCli(["probe", "--out", out(), ...SMALL, "--exclude", "lexicon,bogus"])).stderr).toContain(
        '--exclude: unknown pool tag "bogus"',
      );

      const both = await runCli(["probe", "--out", out(), ...SMALL, "--require", "harmful", "--exclude", "harmful"]);
      expect(both.code).toBe(1);
      expect(both.stderr).toContain("--require harmful and --exclude harmful: no reply can both carry and avoid a harmful fragment");
      // The one pool tagged punished (the punished acts) is tagged harmful too, so excluding harm leaves none.
      const excluded = await runCli(["probe", "--out", out(), ...SMALL, "--require", "punished", "--exclude", "harmful"]);
      expect(excluded.code).toBe(1);
      expect(excluded.stderr).toContain(
        "--require punished: no usable pool can satisfy it for type escalation: the pools tagged punished (punished-acts, ",
      );
      // A pool of one type's lines cannot serve another type.
      const typed = poolFile(
        'name: only-escalation\ndescription: d\ntags: [punished]\nbyType:\n  escalation:\n    en: ["Lower your voice."]\n',
      );
      const otherType = await runCli([
        "probe",
        "--out",
        out(),
        "--suite",
        "starter",
        "--types",
        "gaslighting",
        "--budget",
        "3",
        "--no-progress",
        "--pool",
        typed,
        "--require",
        "punished",
        "--exclude",
        "harmful",
      ]);
      expect(otherType.code).toBe(1);
      expect(otherType.stderr).toContain("--require punished: no usable pool can satisfy it for type gaslighting");
      expect(otherType.stderr).toContain(`only-escalation, ${typed}`);
      const tooMany = await runCli(["probe", "--out", out(), ...SMALL, "--require", "harmful,user,generic", "--max-fragments", "2"]);
      expect(tooMany.stderr).toContain("--require harmful,user,generic: 3 required tags do not fit in --max-fragments 2");
      // Nothing was written for a refused probe.
      const dir = out();
      await runCli(["probe", "--out", dir, ...SMALL, "--require", "harmful", "--exclude", "harmful"]);
      expect(existsSync(join(dir, "checkpoint.json"))).toBe(false);
    });
  });

  /**
   * Issue 19's target for the offline user: harm is never paid. Forced to carry an insult,
   * contempt, a dismissal or the type's punished act in every reply, the best policy the search
   * finds must stay at least 0.3 FS below attuned on held-out seeds, on every type. Expected to
   * fail until the offline user of issue 19 (items 1-3) lands: today one lexicon phrase plus the
   * harm pays.
   */
  it("stays at least 0.3 FS below attuned on held-out seeds when every reply carries a harmful fragment (issue 19 target)", async () => {
    const dir = temporaryDirectory();
    const result = await runCli([
      "probe",
      "--out",
      dir,
      "--suite",
      "starter",
      "--require",
      "harmful",
      "--budget",
      "300",
      "--patience",
      "100",
      "--train-seeds",
      "1",
      "--heldout-seeds",
      "2",
      "--seed",
      "1",
      "--no-progress",
    ]);
    expect(result.code).toBe(0);
    const probe = readResult(dir);
    const gaps = Object.fromEntries(
      probe.types.map((type) => [type.type, { best: type.heldOut?.best, attuned: type.heldOut?.attuned, gap: type.heldOut?.gap }]),
    );
    expect(probe.types).toHaveLength(6);
    for (const type of probe.types)
      expect(type.heldOut?.gap ?? -1, `${type.type}: ${JSON.stringify(gaps)}`).toBeGreaterThanOrEqual(TARGET_GAP);
  }, 180_000);
});
