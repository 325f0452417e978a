/**
 * `aeb report DIR` and `aeb compare DIR DIR` end to end, with the bad inputs a researcher meets:
 * a torn last line, errored dialogues, a condition with a single dialogue, an empty directory,
 * and two runs that share no scenario.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";
import { wilcoxonSignedRank } from "../src/stats/wilcoxon.js";

let root: string;
/** A finished offline run (starter suite, 2 repeats, seed 1) that each test copies before changing. */
let base: string;
/** Scenarios in the starter suite; every condition of the base run has 2 dialogues per scenario. */
const STARTER = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" }).length;
const PER_CONDITION = 2 * STARTER;
const CONDITIONS = ["formulaic", "sycophant", "advice", "labeler", "attuned"];

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
const dialogueLines = (dir: string) => read(dir, "dialogues.jsonl").split("\n").filter(Boolean);

function copyOfBase(name: string): string {
  const dir = join(root, name);
  cpSync(base, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  root = temporaryDirectory("aeb-report-");
  base = join(root, "base");
  const result = await runCli(["run", "--suite", "starter", "--repeats", "2", "--out", base, "--no-progress"]);
  expect(result.code, result.stderr).toBe(0);
});

describe("aeb report", () => {
  it("re-renders report.md and report.html byte for byte as aeb run wrote them, leaving summary.json untouched", async () => {
    const dir = copyOfBase("again");
    const before = { md: read(dir, "report.md"), html: read(dir, "report.html"), summary: read(dir, "summary.json") };
    rmSync(join(dir, "report.md"));
    rmSync(join(dir, "report.html"));
    const result = await runCli(["report", dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("summary from summary.json");
    expect(result.stdout).toContain(join(dir, "report.html"));
    expect(read(dir, "report.md")).toBe(before.md);
    expect(read(dir, "report.html")).toBe(before.html);
    expect(read(dir, "summary.json")).toBe(before.summary);
  });

  it("shows what aeb run's summary.json holds: no headline ECS from the lexicon baseline, its own table under that name, the comparisons and the length confound", async () => {
    const summary = JSON.parse(read(base, "summary.json")) as {
      judges: { ecs: string[]; headlineEcs: string | null; heuristicEcs: Record<string, string> };
      conditions: Array<{
        name: string;
        ecs: { mean: number } | null;
        ecsByJudge: Record<string, { mean: { mean: number } | null; judged: number }>;
      }>;
      reference: string | null;
      comparisons: Array<{
        metric: string;
        test: string;
        a: string;
        b: string;
        n: number;
        p: number;
        pHolm: number;
        r: number | null;
        family: string;
      }>;
      lengthConfound: Array<{ a: string; b: string; coefficient: number }>;
    };
    expect(summary.judges).toEqual({
      ecs: ["offline-lexicon"],
      hid: [],
      headlineEcs: null,
      heuristicEcs: { "offline-lexicon": "offline-lexicon" },
    });
    const markdown = read(base, "report.md");
    const page = read(base, "report.html");
    // The offline lexicon judge is a heuristic: no headline ECS, and a note that says why.
    const attuned = summary.conditions.find((condition) => condition.name === "attuned")!;
    expect(attuned.ecs).toBeNull();
    expect(markdown).toMatch(new RegExp(`\\| attuned \\| ${PER_CONDITION} \\| [^|]+\\| [^|]+\\| [^|]+\\| n/a \\(no model judge\\) \\|`));
    expect(markdown).toContain(
      "ECS is n/a (no model judge): offline-lexicon is the ECS lexicon baseline, which reads the user's messages only, not a model judge.",
    );
    expect(markdown).toContain(
      "| ECS judges | offline-lexicon (ECS lexicon baseline: reads the user's messages only, not a model judge) |",
    );
    expect(markdown).toContain("### ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge");
    expect(markdown).not.toContain("(the headline ECS)");
    expect(markdown).toContain("| condition | ECS [95% CI] | before manipulation | after manipulation | drop | judged | judge errors |");
    expect(markdown).toMatch(
      new RegExp(
        `\\| attuned \\| ${attuned.ecsByJudge["offline-lexicon"]!.mean!.mean.toFixed(3)} \\[[^|]+\\| [^|]+\\| [^|]+\\| [^|]+\\| ${PER_CONDITION} \\| 0 \\|`,
      ),
    );
    expect(page).toContain("<h3>ECS lexicon baseline (offline-lexicon): reads the user&#39;s messages only, not a model judge</h3>");
    // Every comparison of summary.json is a row of the report.
    expect(summary.comparisons.length).toBeGreaterThan(0);
    expect(markdown).not.toContain("No comparisons");
    for (const metric of ["fs", "hid", "ecs:offline-lexicon", "collapse"])
      expect(
        summary.comparisons.some((row) => row.metric === metric),
        metric,
      ).toBe(true);
    // The heuristic's comparisons are named after it, never `ecs`.
    expect(summary.comparisons.some((row) => row.metric === "ecs")).toBe(false);
    // attuned is the reference: its pairs are one Holm family, shown first as "condition vs attuned", one row per pair.
    expect(summary.reference).toBe("attuned");
    for (const row of summary.comparisons) {
      const p = (value: number) => (value === 0 ? "0" : value < 0.001 ? value.toExponential(1) : value.toFixed(3));
      expect(row.family).toBe(row.a === "attuned" || row.b === "attuned" ? "reference" : "other");
      const [first, second] = row.b === "attuned" || row.family === "other" ? [row.a, row.b] : [row.b, row.a];
      expect(markdown).toMatch(
        new RegExp(`^\\| ${first} \\| ${second} \\| .*\\| ${p(row.p).replace(".", "\\.")} / ${p(row.pHolm).replace(".", "\\.")} \\|`, "m"),
      );
    }
    expect(markdown).toContain("### fs: each condition against the reference, attuned (4 pairs)");
    expect(markdown).toContain("### fs: the other pairs (6 pairs)");
    // One sign of r for both tests, said under the tables.
    expect(markdown).toContain("r: the effect size, positive when a tends to score higher than b (docs/statistics.md)");
    // One length-confound row per pair of conditions.
    expect(summary.lengthConfound).toHaveLength((CONDITIONS.length * (CONDITIONS.length - 1)) / 2);
    expect(markdown).not.toContain("summary.json has no length-confound analysis");
    for (const row of summary.lengthConfound) expect(markdown).toContain(`| ${row.a} | ${row.b} | ${row.coefficient.toFixed(3)} |`);
    const section = page.slice(page.indexOf('<section id="length-confound">'), page.indexOf('<section id="procedure">'));
    expect(section.match(/<tr><td>/g)).toHaveLength(summary.lengthConfound.length);
  });

  it("merges the judgements of aeb judge (judgements.jsonl) into the report", async () => {
    const dir = copyOfBase("judged");
    const config = join(root, "second-judge.yaml");
    writeFileSync(config, "judges:\n  ecs:\n    - name: second-lexicon\n      kind: offline\n");
    const judged = await runCli(["judge", dir, "--config", config]);
    expect(judged.code, judged.stderr).toBe(0);
    expect(read(dir, "dialogues.jsonl")).toBe(read(base, "dialogues.jsonl"));
    expect(read(dir, "judgements.jsonl").split("\n").filter(Boolean)).toHaveLength(CONDITIONS.length * PER_CONDITION);
    const written = { md: read(dir, "report.md"), html: read(dir, "report.html") };
    // Both are the offline lexicon judge under two names: heuristics by their judge id, neither the headline.
    expect(written.md).toContain("### ECS lexicon baseline (second-lexicon): reads the user's messages only, not a model judge");
    expect(written.md).toContain("### ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge");
    expect(written.md).toContain(
      "| ECS judges | second-lexicon (ECS lexicon baseline: reads the user's messages only, not a model judge), offline-lexicon (ECS lexicon baseline: reads the user's messages only, not a model judge) |",
    );
    expect(written.md).not.toContain("(the headline ECS)");
    // aeb report re-renders what aeb judge wrote.
    rmSync(join(dir, "report.md"));
    rmSync(join(dir, "report.html"));
    expect((await runCli(["report", dir])).code).toBe(0);
    expect(read(dir, "report.md")).toBe(written.md);
    expect(read(dir, "report.html")).toBe(written.html);
    // Recomputed from the dialogues, the second judge's scores still come in, from judgements.jsonl.
    rmSync(join(dir, "summary.json"));
    const recomputed = await runCli(["report", dir]);
    expect(recomputed.code, recomputed.stderr).toBe(0);
    expect(read(dir, "report.md")).toContain("### ECS lexicon baseline (second-lexicon)");
    expect(read(dir, "report.html")).toContain("ecs:second-lexicon");
  });

  it("reports a torn last line and uses the rest", async () => {
    const dir = copyOfBase("torn");
    const complete = dialogueLines(dir).length;
    appendFileSync(join(dir, "dialogues.jsonl"), '{"id":"attuned/escalation-landlord/9","condi');
    const result = await runCli(["report", dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `dialogues.jsonl ends with a torn line (an interrupted write); it was left out and the ${complete} complete dialogue(s) before it were used.`,
    );
    expect(result.stdout).toContain(`read ${complete} dialogue(s)`);
    expect(read(dir, "report.html")).toContain("ends with a torn line");
    expect(read(dir, "report.md")).toContain("ends with a torn line");
    // The report never repairs the run's own files.
    expect(read(dir, "dialogues.jsonl").endsWith('"condi')).toBe(true);
  });

  it("excludes dialogues with status error and counts them", async () => {
    const dir = copyOfBase("errored");
    const lines = dialogueLines(dir).map((line) => JSON.parse(line) as Record<string, unknown>);
    const broken = lines.filter((record) => record.condition === "attuned").slice(0, 2);
    for (const record of broken) Object.assign(record, { status: "error", endReason: "error", error: "simulator output unreadable" });
    writeFileSync(join(dir, "dialogues.jsonl"), lines.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const result = await runCli(["report", dir, "--recompute"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `read ${lines.length} dialogue(s) (${lines.length - 2} scored, 2 ended in error); summary recomputed from dialogues.jsonl`,
    );
    const markdown = read(dir, "report.md");
    expect(markdown).toContain("attuned: 2 dialogue(s) ended in error and are excluded from every statistic");
    expect(markdown).toMatch(new RegExp(`\\| attuned \\| ${PER_CONDITION - 2} \\| [^|]+\\| [^|]+\\| [^|]+\\| [^|]+\\| [^|]+\\| 2 \\|`));
    const worst = read(dir, "report.html").slice(read(dir, "report.html").indexOf('<section id="worst">'));
    for (const record of broken) expect(worst).not.toContain(`<strong>${String(record.id)}</strong>`);
    // --recompute alone does not touch summary.json; --write-summary does.
    expect(read(dir, "summary.json")).toBe(read(base, "summary.json"));
    expect((await runCli(["report", dir, "--write-summary"])).code).toBe(0);
    expect(JSON.parse(read(dir, "summary.json")).errors).toBe(2);
  });

  it("says there is no CI for a condition with a single dialogue", async () => {
    const dir = copyOfBase("single");
    const lines = dialogueLines(dir);
    const solo = lines.filter((line) => (JSON.parse(line) as { condition: string }).condition === "labeler").slice(0, 1);
    writeFileSync(
      join(dir, "dialogues.jsonl"),
      [...lines.filter((line) => (JSON.parse(line) as { condition: string }).condition !== "labeler"), ...solo]
        .map((line) => `${line}\n`)
        .join(""),
    );
    const result = await runCli(["report", dir, "--recompute"]);
    expect(result.code, result.stderr).toBe(0);
    const markdown = read(dir, "report.md");
    expect(markdown).toMatch(/\| labeler \| 1 \| \d\.\d{3} \(n=1: no CI\) \|/);
    expect(markdown).toContain("labeler: only 1 scored dialogue(s); no interval is given");
    const page = read(dir, "report.html");
    expect(page).toContain("(n=1: no CI)");
    expect(page).toContain("A condition with fewer than two scored dialogues has no confidence interval.");
  });

  it("recomputes the summary, and says so, when summary.json is missing", async () => {
    const dir = copyOfBase("no-summary");
    rmSync(join(dir, "summary.json"));
    const result = await runCli(["report", dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("summary.json is missing; the summary was recomputed from dialogues.jsonl.");
    expect(read(dir, "report.md")).toContain(`| attuned | ${PER_CONDITION} |`);
  });

  it("compares against the condition --reference names, leaving summary.json as it is; an unknown name lists the conditions", async () => {
    const dir = copyOfBase("reference");
    const before = read(dir, "summary.json");
    const result = await runCli(["report", dir, "--reference", "advice"]);
    expect(result.code, result.stderr).toBe(0);
    expect(read(dir, "summary.json")).toBe(before);
    const markdown = read(dir, "report.md");
    expect(markdown).toContain("### fs: each condition against the reference, advice (4 pairs)");
    expect(markdown).toMatch(/^\| attuned \| advice \| /m);
    expect(markdown).toContain("the pairs with the reference condition advice are one family");
    // --write-summary keeps it.
    const written = await runCli(["report", dir, "--reference", "advice", "--write-summary"]);
    expect(written.code, written.stderr).toBe(0);
    expect((JSON.parse(read(dir, "summary.json")) as { reference: string }).reference).toBe("advice");
    const unknown = await runCli(["report", dir, "--reference", "atuned"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      '--reference names condition "atuned", which this run does not have (its conditions: formulaic, sycophant, advice, labeler, attuned)',
    );
  });

  it("takes the reference from the run config's report.reference, and rejects one that is not a condition", async () => {
    const config = join(root, "reference.yaml");
    writeFileSync(config, "report:\n  reference: labeler\nscenarios:\n  suite: starter\n");
    const out = join(root, "configured-reference");
    const run = await runCli(["run", "--config", config, "--out", out, "--no-progress"]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(read(out, "summary.json")) as { reference: string }).reference).toBe("labeler");
    expect(read(out, "report.md")).toContain("### fs: each condition against the reference, labeler (4 pairs)");
    // A recomputed summary reads it from run.json too.
    rmSync(join(out, "summary.json"));
    expect((await runCli(["report", out])).code).toBe(0);
    expect(read(out, "report.md")).toContain("### fs: each condition against the reference, labeler (4 pairs)");
    const wrong = join(root, "wrong-reference.yaml");
    writeFileSync(wrong, "report:\n  reference: nobody\n");
    const failed = await runCli(["run", "--config", wrong, "--out", join(root, "never"), "--no-progress"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      'report.reference: "nobody" is not a condition of this config (conditions: formulaic, sycophant, advice, labeler, attuned)',
    );
  });

  it("notes when summary.json and dialogues.jsonl disagree", async () => {
    const dir = copyOfBase("disagree");
    writeFileSync(
      join(dir, "dialogues.jsonl"),
      dialogueLines(dir)
        .slice(0, -3)
        .map((line) => `${line}\n`)
        .join(""),
    );
    const result = await runCli(["report", dir]);
    expect(result.code, result.stderr).toBe(0);
    const total = CONDITIONS.length * PER_CONDITION;
    expect(result.stderr).toContain(`summary.json counts ${total} dialogue(s) but dialogues.jsonl has ${total - 3} readable`);
  });

  it("fails clearly, naming the missing file, on an empty run directory", async () => {
    const dir = join(root, "empty");
    mkdirSync(dir);
    const result = await runCli(["report", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `aeb: ${join(dir, "dialogues.jsonl")} is missing: ${dir} is not a run directory, or its run has not finished a dialogue yet (make one with aeb run --out ${dir})\n`,
    );
    writeFileSync(join(dir, "dialogues.jsonl"), "");
    const emptyFile = await runCli(["report", dir]);
    expect(emptyFile.code).toBe(1);
    expect(emptyFile.stderr).toContain(`${join(dir, "dialogues.jsonl")} holds no dialogue; nothing to report`);
    const missing = await runCli(["report", join(root, "does-not-exist")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("does-not-exist does not exist");
  });

  it("names the file and field of a broken summary.json", async () => {
    const dir = copyOfBase("bad-summary");
    writeFileSync(join(dir, "summary.json"), JSON.stringify({ format: 1, conditions: "nope" }));
    const result = await runCli(["report", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, "summary.json")} is not a run summary`);
    expect(result.stderr).toContain("conditions");
    expect(result.stderr).toContain("--recompute");
  });
});

describe("aeb compare", () => {
  it("matches dialogues by condition, scenario and repeat and prints a table per condition", async () => {
    const other = join(root, "other-seed");
    expect((await runCli(["run", "--suite", "starter", "--repeats", "3", "--seed", "9", "--out", other, "--no-progress"])).code).toBe(0);
    const out = join(root, "compare.md");
    const result = await runCli(["compare", base, other, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /condition\s+simulated user \(A \/ B\)\s+n matched\s+FS A\s+FS B\s+B - A\s+95% CI \(paired bootstrap\)\s+Wilcoxon p/,
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^formulaic\\s+offline\\s+${PER_CONDITION}\\s+\\d\\.\\d{3}\\s+\\d\\.\\d{3}\\s+[+-]\\d\\.\\d{3}\\s+\\[-?\\d\\.\\d{3}, -?\\d\\.\\d{3}\\]\\s+(\\S+)$`,
        "m",
      ),
    );
    expect(result.stdout).toContain(`${STARTER} scenario(s) in both runs`);
    expect(result.stdout).toContain(`attuned: 0 dialogue(s) only in A and ${STARTER} only in B are left out`);
    const markdown = readFileSync(out, "utf8");
    expect(markdown).toContain(
      "| condition | simulated user (A / B) | n matched | FS A | FS B | B - A | 95% CI (paired bootstrap) | Wilcoxon p |",
    );
    // One simulated user, so no warning about simulators; but another seed, which is said.
    expect(result.stderr).not.toContain("simulated user");
    expect(result.stderr).toContain("warning: the runs used different seeds (A ran with seed 1, B with seed 9)");
    const json = join(root, "compare.json");
    expect((await runCli(["compare", base, other, "--out", json])).code).toBe(0);
    const comparison = JSON.parse(readFileSync(json, "utf8"));
    expect(comparison.conditions.map((row: { condition: string }) => row.condition)).toEqual([
      "formulaic",
      "sycophant",
      "advice",
      "labeler",
      "attuned",
    ]);
    expect(comparison.conditions[0].differences).toHaveLength(PER_CONDITION);
    // The p-value is the stats module's Wilcoxon on the same matched differences.
    for (const row of comparison.conditions as Array<{ wilcoxonP: number | null; differences: Array<{ difference: number }> }>) {
      const differences = row.differences.map((pair) => pair.difference);
      const expected = differences.every((value) => value === 0) ? null : wilcoxonSignedRank(differences).p;
      expect(row.wilcoxonP).toBe(expected);
    }
  });

  it("gives a zero difference and a degenerate interval when a run is compared with itself", async () => {
    const result = await runCli(["compare", base, base]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^attuned\\s+offline\\s+${PER_CONDITION}\\s+(\\d\\.\\d{3})\\s+\\1\\s+\\+0\\.000\\s+\\[0\\.000, 0\\.000\\]\\s+n/a$`, "m"),
    );
  });

  it("warns when the two runs used different seeds, naming both and how to rerun, and not when they share one", async () => {
    const same = await runCli(["compare", base, copyOfBase("same-seed")]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain("different seeds");
    const other = join(root, "seed-7");
    const run = await runCli(["run", "--suite", "starter", "--repeats", "2", "--seed", "7", "--out", other, "--no-progress"]);
    expect(run.code, run.stderr).toBe(0);
    const out = join(root, "seeds.json");
    const result = await runCli(["compare", base, other, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const matched = CONDITIONS.length * PER_CONDITION;
    expect(result.stderr).toContain(
      `warning: the runs used different seeds (A ran with seed 1, B with seed 7): ${matched} of ${matched} matched dialogue(s) met different simulated-user randomness`,
    );
    expect(result.stderr).toContain("rerun B with --seed 1");
    expect((JSON.parse(read(root, "seeds.json")) as { differentSeeds: unknown }).differentSeeds).toEqual({
      pairs: matched,
      matched,
      runSeedA: 1,
      runSeedB: 7,
    });
  });

  it("names both simulated users and warns when the runs were scored by different ones", async () => {
    const dir = copyOfBase("other-user");
    // The same dialogues, recorded as if an LLM user on model "judge-model" with the aeb-paper pack had scored them.
    const manifest = JSON.parse(read(dir, "run.json")) as { config: Record<string, unknown> };
    manifest.config.simulator = {
      kind: "llm",
      promptPack: "aeb-paper",
      endpoint: { baseUrl: "http://127.0.0.1:1/v1", model: "judge-model" },
    };
    writeFileSync(join(dir, "run.json"), JSON.stringify(manifest));
    const out = join(root, "across.md");
    const result = await runCli(["compare", base, dir, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^attuned\\s+offline / judge-model, pack aeb-paper \\(differ\\)\\s+${PER_CONDITION}\\s`, "m"));
    expect(result.stderr).toContain(
      "warning: attuned: A was scored by the simulated user offline and B by judge-model, pack aeb-paper; B - A mixes any change in the agent with the two simulated users' disagreement",
    );
    expect(result.stdout).not.toContain("127.0.0.1");
    const markdown = readFileSync(out, "utf8");
    expect(markdown).toContain("- warning: formulaic: A was scored by the simulated user offline and B by judge-model, pack aeb-paper");
  });

  describe("--map: differently named conditions", () => {
    /** The base run with condition attuned renamed attuned-rl (as an RL checkpoint named after its model would be). */
    let renamed: string;
    const fsOf = (dir: string, condition: string) =>
      new Map(
        dialogueLines(dir)
          .map(
            (line) => JSON.parse(line) as { condition: string; scenarioId: string; repeat: number; status: string; final: { fs: number } },
          )
          .filter((record) => record.condition === condition && record.status === "done")
          .map((record) => [`${record.scenarioId}#${record.repeat}`, record.final.fs]),
      );

    beforeAll(() => {
      renamed = copyOfBase("renamed-condition");
      const lines = dialogueLines(renamed).map((line) => {
        const record = JSON.parse(line) as { id: string; condition: string };
        return JSON.stringify(
          record.condition === "attuned"
            ? { ...record, id: record.id.replace(/^attuned\//, "attuned-rl/"), condition: "attuned-rl" }
            : record,
        );
      });
      writeFileSync(join(renamed, "dialogues.jsonl"), lines.map((line) => `${line}\n`).join(""));
      const manifest = JSON.parse(read(renamed, "run.json")) as { config: { conditions: Array<{ name: string }> } };
      for (const condition of manifest.config.conditions) if (condition.name === "attuned") condition.name = "attuned-rl";
      writeFileSync(join(renamed, "run.json"), JSON.stringify(manifest));
    });

    it("leaves differently named conditions uncompared without a mapping", async () => {
      const result = await runCli(["compare", base, renamed]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("conditions of A not compared: attuned");
      expect(result.stdout).toContain("conditions of B not compared: attuned-rl");
      expect(result.stdout).not.toMatch(/^attuned/m);
    });

    it("compares A's condition with B's as mapped, shows the mapping, and pairs the others by name", async () => {
      const json = join(root, "mapped.json");
      const result = await runCli(["compare", base, renamed, "--map", "attuned=attuned-rl", "--out", json]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        "conditions mapped by --map: attuned (A) with attuned-rl (B); every other condition with its namesake",
      );
      // The same dialogues under another name: every difference is zero.
      expect(result.stdout).toMatch(
        new RegExp(
          `^attuned / attuned-rl\\s+offline\\s+${PER_CONDITION}\\s+(\\d\\.\\d{3})\\s+\\1\\s+\\+0\\.000\\s+\\[0\\.000, 0\\.000\\]\\s+n/a$`,
          "m",
        ),
      );
      expect(result.stdout).toMatch(new RegExp(`^formulaic\\s+offline\\s+${PER_CONDITION}\\s`, "m"));
      expect(result.stdout).not.toContain("not compared");
      const comparison = JSON.parse(readFileSync(json, "utf8")) as {
        mapping: unknown;
        conditions: Array<{ condition: string; conditionB: string; mapped: boolean }>;
      };
      expect(comparison.mapping).toEqual([{ a: "attuned", b: "attuned-rl" }]);
      expect(comparison.conditions.map((row) => [row.condition, row.conditionB, row.mapped])).toEqual([
        ["formulaic", "formulaic", false],
        ["sycophant", "sycophant", false],
        ["advice", "advice", false],
        ["labeler", "labeler", false],
        ["attuned", "attuned-rl", true],
      ]);
    });

    it("takes several mappings (repeated and as a comma list), each pairing dialogue by dialogue on scenario and repeat", async () => {
      const out = join(root, "crossed.md");
      const result = await runCli([
        "compare",
        base,
        renamed,
        "--map",
        "formulaic=attuned-rl,attuned=formulaic",
        "--map",
        "advice=labeler",
        "--out",
        `${out}.json`,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const comparison = JSON.parse(readFileSync(`${out}.json`, "utf8")) as {
        conditions: Array<{
          condition: string;
          conditionB: string;
          matched: number;
          difference: number;
          differences: Array<{ scenarioId: string; repeat: number; a: number; b: number }>;
        }>;
        onlyInA: string[];
        onlyInB: string[];
      };
      // In A's order; labeler of A has its namesake in B, but B's labeler is mapped from A's advice, so it is not compared by name.
      expect(comparison.conditions.map((row) => `${row.condition}/${row.conditionB}`)).toEqual([
        "formulaic/attuned-rl",
        "sycophant/sycophant",
        "advice/labeler",
        "attuned/formulaic",
      ]);
      expect(comparison.onlyInA).toEqual(["labeler"]);
      expect(comparison.onlyInB).toEqual(["advice"]);
      // Each pair is A's dialogue and B's on the same scenario and repeat, read straight from the files.
      const crossed = comparison.conditions[0]!;
      const formulaicA = fsOf(base, "formulaic");
      const attunedB = fsOf(renamed, "attuned-rl");
      expect(crossed.matched).toBe(PER_CONDITION);
      for (const pair of crossed.differences) {
        expect(pair.a).toBe(formulaicA.get(`${pair.scenarioId}#${pair.repeat}`));
        expect(pair.b).toBe(attunedB.get(`${pair.scenarioId}#${pair.repeat}`));
      }
      const expected = crossed.differences.reduce((sum, pair) => sum + pair.b - pair.a, 0) / crossed.differences.length;
      expect(crossed.difference).toBeCloseTo(expected, 12);
      expect(crossed.difference).toBeGreaterThan(0); // attuned beats formulaic on the offline user
      expect(result.stdout).toMatch(/^formulaic \/ attuned-rl\s/m);
      expect(result.stdout).toContain("conditions of A not compared: labeler");
      expect(result.stdout).toContain("conditions of B not compared: advice");
    });

    it("names an unknown condition in --map and lists the run's conditions; a malformed --map says what it expects", async () => {
      const unknownA = await runCli(["compare", base, renamed, "--map", "attuned-rl=attuned-rl"]);
      expect(unknownA.code).toBe(1);
      expect(unknownA.stdout).toBe("");
      expect(unknownA.stderr).toBe(
        `aeb: --map names condition "attuned-rl" of run A (${base}), which has no such condition; its conditions are: ${CONDITIONS.join(", ")}\n`,
      );
      const unknownB = await runCli(["compare", base, renamed, "--map", "attuned=attuned"]);
      expect(unknownB.code).toBe(1);
      expect(unknownB.stderr).toContain(
        `--map names condition "attuned" of run B (${renamed}), which has no such condition; its conditions are: formulaic, sycophant, advice, labeler, attuned-rl`,
      );
      const twice = await runCli(["compare", base, renamed, "--map", "attuned=attuned-rl", "--map", "attuned=attuned-rl"]);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain("--map lists attuned=attuned-rl twice");
      for (const malformed of ["attuned", "attuned=", "=attuned-rl", "a=b=c", "attuned=attuned-rl,"]) {
        const result = await runCli(["compare", base, renamed, "--map", malformed]);
        expect(result.code, malformed).toBe(1);
        expect(result.stderr, malformed).toContain("--map expects NAME_A=NAME_B");
      }
    });
  });

  it("says so clearly when the runs share no scenario", async () => {
    const dir = copyOfBase("renamed");
    const renamed = dialogueLines(dir).map((line) => {
      const record = JSON.parse(line) as { id: string; scenarioId: string };
      return JSON.stringify({ ...record, id: `${record.id}-x`, scenarioId: `${record.scenarioId}-elsewhere` });
    });
    writeFileSync(join(dir, "dialogues.jsonl"), renamed.map((line) => `${line}\n`).join(""));
    const result = await runCli(["compare", base, dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `aeb: ${base} and ${dir} share no scenario (no scenario id was scored in both), so there is nothing to match; compare runs of the same suite\n`,
    );
  });

  it("names the missing file of a directory that is not a run", async () => {
    const dir = join(root, "not-a-run");
    mkdirSync(dir);
    const result = await runCli(["compare", base, dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, "dialogues.jsonl")} is missing`);
  });
});
