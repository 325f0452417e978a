/**
 * `aeb run` end to end: the files of spec section 6, byte-identical results for a seed, resume
 * after SIGKILL with every dialogue exactly once, and a clear error for each kind of bad input.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DialogueRecordSchema } from "../src/core/dialogue.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { runCli, spawnCli, temporaryDirectory, type CliResult } from "./helpers/cli.js";

const lines = (dir: string) => readFileSync(join(dir, "dialogues.jsonl"), "utf8").split("\n").filter(Boolean);
const ids = (dir: string) => lines(dir).map((line) => (JSON.parse(line) as { id: string }).id);

describe("aeb run (offline)", () => {
  it("writes dialogues.jsonl, summary.json, report.md and report.html and prints the table", async () => {
    const out = join(temporaryDirectory(), "run");
    const result = await runCli(["run", "--suite", "starter", "--out", out, "--no-progress"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/condition\s+n\s+FS \[95% CI\]/);
    for (const name of ["formulaic", "sycophant", "advice", "labeler", "attuned"]) expect(result.stdout).toContain(name);
    for (const line of lines(out)) expect(DialogueRecordSchema.safeParse(JSON.parse(line)).success).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.conditions.map((condition: { name: string }) => condition.name)).toEqual([
      "formulaic",
      "sycophant",
      "advice",
      "labeler",
      "attuned",
    ]);
    expect(summary.conditions[0]).toMatchObject({
      n: expect.any(Number),
      errors: 0,
      fs: { mean: expect.any(Number), ci95: expect.any(Array) },
    });
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("# AEB run report");
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("<h1>AEB run report</h1>");
    expect(result.stdout).toContain(
      `files: ${join(out, "dialogues.jsonl")}, ${join(out, "summary.json")}, ${join(out, "report.md")}, ${join(out, "report.html")}`,
    );
    // The default judges: no heuristic ECS in the headline, the lexicon baseline printed under its own name.
    const ecsSummary = summary as {
      conditions: Array<{ name: string; ecs: unknown; ecsByJudge: Record<string, { mean: { mean: number } }> }>;
    };
    const [headline, baseline] = result.stdout.split("\n\n");
    // Every condition's headline ECS cell is n/a (no model judge); no lexicon score appears in the headline table.
    for (const condition of ecsSummary.conditions) {
      expect(condition.ecs).toBeNull();
      expect(headline).toMatch(new RegExp(`^${condition.name}\\s.*\\sn/a \\(no model judge\\)\\s+\\d+\\s+0$`, "m"));
      expect(headline).not.toContain(condition.ecsByJudge["offline-lexicon"]!.mean.mean.toFixed(3));
      expect(baseline).toMatch(
        new RegExp(`^${condition.name}\\s+${condition.ecsByJudge["offline-lexicon"]!.mean.mean.toFixed(3)} \\[`, "m"),
      );
    }
    expect(baseline?.split("\n")[0]).toBe("ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge");
    expect(result.stdout).toContain("ECS is n/a (no model judge): offline-lexicon is a heuristic, not a model judge");
    // The offline user's HID is its move test, and the table says so.
    expect(headline?.split("\n")[0]).toMatch(/\sHID \(offline: move test\)\s/);
    expect(result.stdout).toContain(
      "HID (offline: move test): under the offline user HID is the same move test that sets the reward, not an independent signal",
    );
  });

  it("gives byte-identical dialogues (as a set) and summary.json for the same seed, whatever the concurrency", async () => {
    const root = temporaryDirectory();
    await runCli([
      "run",
      "--suite",
      "starter",
      "--seed",
      "7",
      "--repeats",
      "2",
      "--concurrency",
      "1",
      "--out",
      join(root, "a"),
      "--no-progress",
    ]);
    await runCli([
      "run",
      "--suite",
      "starter",
      "--seed",
      "7",
      "--repeats",
      "2",
      "--concurrency",
      "16",
      "--out",
      join(root, "b"),
      "--no-progress",
    ]);
    await runCli(["run", "--suite", "starter", "--seed", "8", "--repeats", "2", "--out", join(root, "c"), "--no-progress"]);
    expect(lines(join(root, "a")).sort()).toEqual(lines(join(root, "b")).sort());
    expect(readFileSync(join(root, "a", "summary.json"), "utf8")).toBe(readFileSync(join(root, "b", "summary.json"), "utf8"));
    expect(lines(join(root, "a")).sort()).not.toEqual(lines(join(root, "c")).sort());
  });

  it("resumes after SIGKILL with every dialogue present exactly once", async () => {
    const out = join(temporaryDirectory(), "killed");
    const args = ["run", "--suite", "starter", "--repeats", "40", "--concurrency", "4", "--out", out, "--no-progress"];
    const child = spawnCli(args);
    // Kill once a few hundred dialogues are on disk, well before the end.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (existsSync(join(out, "dialogues.jsonl")) && lines(out).length >= 200) {
          clearInterval(timer);
          child.kill("SIGKILL");
        }
      }, 5);
      child.on("exit", () => {
        clearInterval(timer);
        resolve();
      });
      child.on("error", reject);
    });
    const before = lines(out).length;
    const starter = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" }).length;
    const total = starter * 5 * 40;
    expect(before).toBeLessThan(total);
    // Simulate a write torn by the kill, too.
    appendFileSync(join(out, "dialogues.jsonl"), '{"id":"torn');
    const resumed = await runCli(args);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/resuming .*already finished/);
    expect(resumed.stderr).toContain("repaired a torn last line");
    const all = ids(out);
    expect(all).toHaveLength(total);
    expect(new Set(all).size).toBe(total);
  }, 120_000);

  it("prints plain progress lines when stderr is not a terminal", async () => {
    const out = join(temporaryDirectory(), "lines");
    const result = await runCli(["run", "--suite", "starter", "--repeats", "2", "--out", out, "--progress-interval", "0.05"]);
    expect(result.code).toBe(0);
    const progress = result.stderr.split("\n").filter((line) => line.startsWith("progress: "));
    expect(progress[0]).toBe("progress: 0/120 dialogues to run");
    expect(progress.at(-1)).toMatch(
      /^progress: 120\/120 dialogues \(100%\), 0 error\(s\), [\d.]+ dialogues\/s, time left: about 0s, \d+s elapsed$/,
    );
  });

  it("on SIGINT keeps what finished, says so, prints the command that resumes, and that command finishes the run", async () => {
    const root = temporaryDirectory();
    const out = join(root, "interrupted");
    const args = ["run", "--suite", "starter", "--types", "escalation", "--repeats", "40", "--out", out, "--progress-interval", "0.1"];
    const child = spawnCli(args);
    let stderr = "";
    let signalled = false;
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!signalled && /progress: [1-9]\d*\//.test(stderr)) {
        signalled = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (exitCode) => resolve(exitCode)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/SIGINT: stopping; dialogues in flight are dropped/);
    expect(stderr).toMatch(/stopped by SIGINT: \d+ of 400 dialogues finished and kept in /);
    const hint = /resume with: (.*)/.exec(stderr)?.[1];
    expect(hint).toBe(`aeb run --suite starter --types escalation --repeats 40 --out ${out} --progress-interval 0.1`);
    const kept = lines(out).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(400);
    const resumed = await runCli(hint!.split(" ").slice(1).concat("--no-progress"));
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${out}: ${kept} of 400 dialogues already finished`);
    const all = ids(out);
    expect(new Set(all).size).toBe(400);
    expect(all).toHaveLength(400);
  }, 120_000);

  it("a finished run started again runs nothing", async () => {
    const out = join(temporaryDirectory(), "again");
    await runCli(["run", "--suite", "starter", "--out", out, "--no-progress"]);
    const before = readFileSync(join(out, "dialogues.jsonl"), "utf8");
    const again = await runCli(["run", "--suite", "starter", "--out", out, "--no-progress"]);
    expect(again.stdout).toContain("(0 run now,");
    expect(readFileSync(join(out, "dialogues.jsonl"), "utf8")).toBe(before);
  });
});

describe("aeb run refuses bad input with one clear line", () => {
  const expectError = (result: CliResult, pattern: RegExp) => {
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  };

  it("names the file and field of an invalid scenario", async () => {
    const dir = temporaryDirectory();
    writeFileSync(join(dir, "bad.yaml"), "id: bad-one\ntype: escalation\ntitle: x\n");
    expectError(await runCli(["run", "--scenarios", dir, "--out", join(dir, "out")]), /bad\.yaml: invalid scenario:[\s\S]*persona/);
  });

  it("names both files of a duplicate scenario id", async () => {
    const dir = temporaryDirectory();
    const text = readFileSync(join(import.meta.dirname, "..", "scenarios", "starter", "escalation-cancelled-project.yaml"), "utf8");
    writeFileSync(join(dir, "a.yaml"), text);
    writeFileSync(join(dir, "b.yaml"), text);
    expectError(
      await runCli(["run", "--scenarios", dir, "--out", join(dir, "out")]),
      /duplicate scenario id "escalation-cancelled-project" in .*b\.yaml and .*a\.yaml/,
    );
  });

  it("names an unknown type", async () => {
    expectError(
      await runCli(["run", "--types", "escalation,sulking", "--out", join(temporaryDirectory(), "o")]),
      /unknown trajectory type "sulking"/,
    );
  });

  it("names a config that does not parse, and a config field that is wrong", async () => {
    const dir = temporaryDirectory();
    writeFileSync(join(dir, "broken.yaml"), "seed: [1,\n");
    expectError(await runCli(["run", "--config", join(dir, "broken.yaml"), "--out", join(dir, "o")]), /broken\.yaml is not valid YAML/);
    writeFileSync(join(dir, "wrong.yaml"), "repeats: -2\n");
    expectError(
      await runCli(["run", "--config", join(dir, "wrong.yaml"), "--out", join(dir, "o")]),
      /wrong\.yaml: invalid config:[\s\S]*repeats/,
    );
  });

  it("rejects a bad flag value", async () => {
    expectError(await runCli(["run", "--repeats", "zero"]), /expected a positive integer, got "zero"/);
  });

  it("names an output directory that cannot be written", async () => {
    const dir = temporaryDirectory();
    writeFileSync(join(dir, "file"), "");
    expectError(
      await runCli(["run", "--suite", "starter", "--out", join(dir, "file", "sub")]),
      /output directory .*file\/sub cannot be written/,
    );
  });

  it("refuses to resume into a run made with a different config unless --force, losing nothing", async () => {
    const out = join(temporaryDirectory(), "run");
    await runCli(["run", "--suite", "starter", "--seed", "1", "--out", out, "--no-progress"]);
    const before = readFileSync(join(out, "dialogues.jsonl"), "utf8");
    expectError(
      await runCli(["run", "--suite", "starter", "--seed", "2", "--out", out]),
      /holds \d+ finished dialogue\(s\) of a run with a different definition[\s\S]*config seed: 1 -> 2/,
    );
    expect(readFileSync(join(out, "dialogues.jsonl"), "utf8")).toBe(before);
    const forced = await runCli(["run", "--suite", "starter", "--repeats", "2", "--seed", "1", "--out", out, "--force", "--no-progress"]);
    expect(forced.code).toBe(0);
    const all = ids(out);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(2 * before.split("\n").filter(Boolean).length);
  });

  it("prints usage for an unknown command", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("unknown command");
  });
});
