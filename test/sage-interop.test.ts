/**
 * `aeb import sage` and `aeb leaderboard` against SAGE's published result files (read from
 * ../shared/data, never copied into the repository). The expected numbers come from an
 * independent reader, a few lines of Python that split on "\n" only, not from the code under test.
 * Where the files or python3 are absent the tests that need them are skipped, saying so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../src/core/data-files.js";
import { DialogueRecordSchema, isAppraised, type DialogueRecord } from "../src/core/dialogue.js";
import { importSageResults } from "../src/interop/import-sage.js";
import { runCli, temporaryDirectory, type CliResult } from "./helpers/cli.js";

const RESULTS_DIR = join(packageRoot, "..", "shared", "data", "sage", "results-deepseek-v3-simulator");
const resultFiles = existsSync(RESULTS_DIR)
  ? readdirSync(RESULTS_DIR)
      .filter((name) => name.endsWith("_result.jsonl"))
      .sort()
      .map((name) => join(RESULTS_DIR, name))
  : [];
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const ready = resultFiles.length > 0 && hasPython;
const why = resultFiles.length === 0 ? `no SAGE result files under ${RESULTS_DIR}` : "python3 is not available for the independent reader";
if (!ready) console.warn(`sage-interop: ${why}; the tests that need them are skipped`);
const NEEDS = ready ? "" : ` [skipped: ${why}]`;

interface Expected {
  n: number;
  mean: number;
  successes: number;
  failures: number;
  u2028Lines: number;
  dialogues: Record<string, { final: number; opening: string; turns: number; emotions: number[]; unanswered: boolean }>;
}

/** The independent reader: plain Python, lines split on "\n" only, emo_point as float. */
const READER = `
import json, sys
out = {}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", newline="") as handle:
        lines = [line for line in handle.read().split("\\n") if line.strip()]
    finals, dialogues = [], {}
    for line in lines:
        row = json.loads(line)
        final = float(row["emo_point"])
        finals.append(final)
        history = row["history"]
        users = [entry for entry in history[1:] if entry["role"] == "user"]
        dialogues[str(row["id"])] = {
            "final": final,
            "opening": history[0]["content"],
            "turns": len(users),
            "emotions": [entry["emotion-point"] for entry in users],
            "unanswered": history[-1]["role"] == "assistant",
        }
    out[path] = {
        "n": len(finals),
        "mean": sum(finals) / len(finals),
        "successes": sum(1 for final in finals if final >= 100),
        "failures": sum(1 for final in finals if final < 10),
        "u2028Lines": sum(1 for line in lines if "\\u2028" in line),
        "dialogues": dialogues,
    }
print(json.dumps(out))
`;

function independentReading(files: readonly string[]): Record<string, Expected> {
  const result = spawnSync("python3", ["-c", READER, ...files], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`python reader failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, Expected>;
}

const conditionOf = (file: string) =>
  file
    .split("/")
    .at(-1)!
    .replace(/_result\.jsonl$/, "");
const readRecords = (dir: string) =>
  readFileSync(join(dir, "dialogues.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)) as DialogueRecord & { sage: { id: string } });

/** The text leaderboard's rows as cells (simulated user, rank, condition, ...). */
function leaderboardCells(stdout: string): string[][] {
  const lines = stdout.split("\n");
  const start = lines.findIndex((line) => line.startsWith("simulated user "));
  const end = lines.indexOf("", start);
  return lines.slice(start + 2, end).map((line) => line.trim().split(/\s{2,}/));
}

/** The row of a condition in the text leaderboard, as cells: [simulated user, rank, condition, dialogues, Sentient, ...]. */
function leaderboardRow(stdout: string, condition: string): string[] {
  const row = leaderboardCells(stdout).find((cells) => cells[2] === condition);
  if (row === undefined) throw new Error(`no row for ${condition} in:\n${stdout}`);
  return row;
}

describe.skipIf(!ready)(`aeb import sage and aeb leaderboard on SAGE's result files${NEEDS}`, () => {
  const expected = ready ? independentReading(resultFiles) : {};
  const out = join(temporaryDirectory(), "import");
  let imported: CliResult = { code: null, stdout: "", stderr: "" };
  beforeAll(async () => {
    if (ready) imported = await runCli(["import", "sage", ...resultFiles, "--out", out]);
  });

  it("imports the four files, one condition each, with no line skipped", async () => {
    expect(resultFiles).toHaveLength(4);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    for (const file of resultFiles) expect(imported.stdout).toContain(`-> condition ${conditionOf(file)}: ${expected[file]!.n} dialogues`);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { conditions: Array<{ name: string; n: number }> };
    expect(summary.conditions.map((condition) => condition.name)).toEqual(resultFiles.map(conditionOf));
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("gpt-4.1");
    // Both reports, with the offline ECS judge's scores under the name that says what it is; aeb report re-renders them as the import wrote them.
    const written = { md: readFileSync(join(out, "report.md"), "utf8"), html: readFileSync(join(out, "report.html"), "utf8") };
    expect(written.html).toContain("gpt-4.1");
    expect(written.md).toContain("### ECS lexicon baseline (offline-lexicon): reads the user's messages only, not a model judge");
    expect(written.md).toContain("ECS is n/a (no model judge)");
    // import.json records which simulated user scored each file: its folder's, without --simulator.
    const manifest = JSON.parse(readFileSync(join(out, "import.json"), "utf8")) as {
      files: Array<{ simulator: string; simulatorFrom: string }>;
    };
    expect(manifest.files.map((file) => [file.simulator, file.simulatorFrom])).toEqual(resultFiles.map(() => ["deepseek-v3", "folder"]));
    const rerendered = await runCli(["report", out]);
    expect(rerendered.code, rerendered.stderr).toBe(0);
    expect(readFileSync(join(out, "report.md"), "utf8")).toBe(written.md);
    expect(readFileSync(join(out, "report.html"), "utf8")).toBe(written.html);
  });

  it.each(resultFiles)("reproduces, dialogue by dialogue, the independent reading of %s", async (file) => {
    const reading = expected[file]!;
    const records = readRecords(out).filter((record) => record.condition === conditionOf(file));
    expect(records).toHaveLength(reading.n);
    const finals = records.map((record) => record.final.emotion);
    expect(finals.reduce((sum, value) => sum + value, 0) / finals.length).toBeCloseTo(reading.mean, 9);
    expect(finals.filter((final) => final >= 100)).toHaveLength(reading.successes);
    expect(finals.filter((final) => final < 10)).toHaveLength(reading.failures);
    expect(records.filter((record) => record.endReason === "success")).toHaveLength(reading.successes);
    expect(records.filter((record) => record.endReason === "collapse")).toHaveLength(reading.failures);
    for (const record of records) {
      const dialogue = reading.dialogues[record.sage.id]!;
      expect(record.final.emotion, record.id).toBe(dialogue.final);
      expect(record.opening, record.id).toEqual({ text: dialogue.opening, emotion: 40 });
      const appraised = record.turns.filter(isAppraised);
      expect(
        appraised.map((turn) => turn.user.emotion),
        record.id,
      ).toEqual(dialogue.emotions);
      expect(
        appraised.map((turn) => turn.user.delta),
        record.id,
      ).toEqual(dialogue.emotions.map((emotion, index) => emotion - (index === 0 ? 40 : dialogue.emotions[index - 1]!)));
      // SAGE's reply at its turn limit, never answered, is the one turn recorded without appraisal.
      expect(record.turns.length - appraised.length, record.id).toBe(dialogue.unanswered ? 1 : 0);
      if (dialogue.unanswered)
        expect(record.turns.at(-1)?.user, record.id).toEqual({ appraised: false, emotion: dialogue.final, adjustments: [], flags: [] });
    }

    const row = leaderboardRow((await runCli(["leaderboard", out])).stdout, conditionOf(file));
    expect(row.slice(3, 7)).toEqual([String(reading.n), reading.mean.toFixed(2), String(reading.successes), String(reading.failures)]);
  });

  it("scores gpt-4.1 at 68.15 with 35 successes and 13 failures (SAGE's table: 68.2, 35, 13)", async () => {
    const fromDirectory = await runCli(["leaderboard", out]);
    expect(fromDirectory.code).toBe(0);
    const gpt41 = leaderboardRow(fromDirectory.stdout, "gpt-4.1");
    expect(gpt41.slice(0, 9)).toEqual(["deepseek-v3", "1", "gpt-4.1", "100", "68.15", "35", "13", "0.681", "13.0%"]);
    // The import scored ECS with the offline lexicon judge, a heuristic: never in the leaderboard's ECS.
    expect(gpt41[9]).toBe("n/a (no model judge)");
    const fromFiles = await runCli(["leaderboard", ...resultFiles]);
    expect(leaderboardCells(fromFiles.stdout).map((cells) => cells.slice(0, 9))).toEqual(
      leaderboardCells(fromDirectory.stdout).map((cells) => cells.slice(0, 9)),
    );
    expect(leaderboardRow(fromFiles.stdout, "gpt-4.1")[9]).toBe("n/a (no ECS judge)");
    expect(fromFiles.stdout).toContain("One simulated user (deepseek-v3)");
    // --simulator names SAGE's simulator where the folder does not.
    const named = await runCli(["leaderboard", resultFiles[0]!, "--simulator", "DeepSeek-V3 (SAGE)"]);
    expect(leaderboardCells(named.stdout)[0]?.[0]).toBe("DeepSeek-V3 (SAGE)");
  });

  it("keeps the raw U+2028 of openai-o4mini_result.jsonl inside the texts", async () => {
    const file = resultFiles.find((path) => path.endsWith("openai-o4mini_result.jsonl"))!;
    expect(expected[file]!.u2028Lines).toBeGreaterThan(0);
    const records = readRecords(out).filter((record) => record.condition === "openai-o4mini");
    expect(records).toHaveLength(100);
    const texts = records.flatMap((record) => [
      record.opening.text,
      ...record.turns.flatMap((turn) => [turn.agent.text, turn.user.text ?? ""]),
    ]);
    expect(texts.some((text) => text.includes("\u2028"))).toBe(true);
  });
});

describe.skipIf(!ready)(`aeb import sage on malformed lines${NEEDS}`, () => {
  const gpt = resultFiles.find((path) => path.endsWith("gpt-4.1_result.jsonl")) ?? "";
  const lines = ready ? readFileSync(gpt, "utf8").split("\n").filter(Boolean).slice(0, 3) : [];
  const broken = join(temporaryDirectory(), "broken_result.jsonl");
  if (ready)
    writeFileSync(
      broken,
      [lines[0], "{not json", lines[1], JSON.stringify({ ...JSON.parse(lines[2]!), emo_point: "lots" }), ""].join("\n"),
    );

  it("by default keeps the rest, reports each bad line with file and line, and prints the count", async () => {
    const out = join(temporaryDirectory(), "lenient");
    const result = await runCli(["import", "sage", broken, "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`skipped ${broken} line 2: not valid JSON`);
    expect(result.stderr).toContain(`skipped ${broken} line 4: not a SAGE result line`);
    expect(result.stderr).toContain("skipped 2 malformed line(s)");
    expect(result.stdout).toContain("-> condition broken: 2 dialogues, 2 line(s) skipped");
    expect(readRecords(out)).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(out, "import.json"), "utf8")).files[0].skippedLines).toEqual([2, 4]);
    // The file's folder is a temporary one, so the simulated user is named with --simulator, recorded and shown.
    const named = join(temporaryDirectory(), "named");
    expect((await runCli(["import", "sage", broken, "--out", named, "--simulator", "gpt-4o"])).stdout).toMatch(
      /\ngpt-4o\s+1\s+broken\s+2\s/,
    );
    expect(JSON.parse(readFileSync(join(named, "import.json"), "utf8")).files[0]).toMatchObject({
      simulator: "gpt-4o",
      simulatorFrom: "flag",
    });
    expect(leaderboardRow((await runCli(["leaderboard", named])).stdout, "broken")[0]).toBe("gpt-4o");
  });

  it("with --strict fails, names the lines and writes nothing", async () => {
    const out = join(temporaryDirectory(), "strict");
    const result = await runCli(["import", "sage", broken, "--out", out, "--strict"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${broken} line 2: not valid JSON`);
    expect(result.stderr).toContain("2 invalid line(s); nothing imported (--strict)");
    expect(existsSync(join(out, "dialogues.jsonl"))).toBe(false);
  });

  it("honours the run lock: refused while another process writes into the directory, nothing written", async () => {
    const out = join(temporaryDirectory(), "locked");
    mkdirSync(out);
    writeFileSync(join(out, ".aeb.lock"), JSON.stringify({ pid: process.ppid, host: hostname(), command: "aeb run", since: "now" }));
    const refused = await runCli(["import", "sage", broken, "--out", out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is in use: aeb run \(pid \d+, since now\) is writing into it/);
    expect(existsSync(join(out, "dialogues.jsonl"))).toBe(false);
  });

  it("replaces an earlier import only with --force, and never writes into a run of aeb run", async () => {
    const out = join(temporaryDirectory(), "again");
    expect((await runCli(["import", "sage", gpt, "--out", out])).code).toBe(0);
    const again = await runCli(["import", "sage", broken, "--out", out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already has dialogues.jsonl; use --force");
    expect((await runCli(["import", "sage", broken, "--out", out, "--force"])).code).toBe(0);
    expect(readRecords(out).map((record) => record.condition)).toEqual(["broken", "broken"]);

    const run = join(temporaryDirectory(), "run");
    expect((await runCli(["run", "--suite", "starter", "--out", run, "--no-progress"])).code).toBe(0);
    const intoRun = await runCli(["import", "sage", gpt, "--out", run, "--force"]);
    expect(intoRun.code).toBe(1);
    expect(intoRun.stderr).toContain("holds a run of `aeb run`");
    // The offline run beside SAGE's files: two simulated users, two groups, each ranked on its own.
    const board = await runCli(["leaderboard", ...resultFiles, run]);
    expect(board.code, board.stderr).toBe(0);
    const rows = leaderboardCells(board.stdout);
    expect(rows.map((cells) => cells[0])).toEqual([
      ...resultFiles.map(() => "deepseek-v3"),
      ...["formulaic", "sycophant", "advice", "labeler", "attuned"].map(() => "offline"),
    ]);
    // The ranking restarts in each group: 1..4 for SAGE's simulator, 1..5 for the offline user.
    expect(rows.map((cells) => cells[1])).toEqual(["1", "2", "3", "4", "1", "2", "3", "4", "5"]);
    expect(rows.slice(0, 4).map((cells) => cells[2])).toEqual(["gpt-4.1", "claude3.7", "deepseek-v3-1227", "openai-o4mini"]);
    expect(board.stdout).toContain(
      "2 simulated users (deepseek-v3, offline): each row is ranked only against rows scored by the same simulated user, and the ranking restarts in each group.",
    );
    // No heuristic ECS in any row: the offline run's lexicon baseline is not a model judge.
    expect(rows.every((cells) => cells[9]!.startsWith("n/a"))).toBe(true);
    // The default run's only ECS judge is the lexicon baseline: the summary has no headline ECS, and neither has the leaderboard.
    const summary = JSON.parse(readFileSync(join(run, "summary.json"), "utf8")) as {
      conditions: Array<{ name: string; ecs: { mean: number } | null }>;
    };
    expect(summary.conditions.find((condition) => condition.name === "attuned")!.ecs).toBeNull();
    expect(leaderboardRow(board.stdout, "attuned").slice(0, 3)).toEqual(["offline", "1", "attuned"]);
    expect(leaderboardRow(board.stdout, "attuned")[9]).toBe("n/a (no model judge)");
  });
});

describe("aeb leaderboard and aeb import on bad arguments", () => {
  it("names a path that does not exist and a directory without dialogues", async () => {
    expect((await runCli(["leaderboard", "/nonexistent/dir"])).stderr).toContain("/nonexistent/dir does not exist");
    expect((await runCli(["leaderboard", temporaryDirectory()])).stderr).toMatch(/has no dialogues\.jsonl/);
    expect((await runCli(["leaderboard", temporaryDirectory(), "--format", "csv"])).stderr).toContain(
      'expected one of text, markdown, json, got "csv"',
    );
    expect((await runCli(["leaderboard", temporaryDirectory(), "--simulator", " "])).stderr).toContain(
      "option '--simulator <name>' argument ' ' is invalid. expected a non-empty name on one line, got \" \"",
    );
  });

  it("requires --out and at least one file", async () => {
    expect((await runCli(["import", "sage", "x_result.jsonl"])).stderr).toContain(
      "--out DIR is required to import (or --verify to only check the files)",
    );
    expect((await runCli(["import", "sage", "--out", temporaryDirectory()])).stderr).toContain("missing required argument 'files'");
  });

  it("refuses two files that would become the same condition", async () => {
    const dir = temporaryDirectory();
    const line = JSON.stringify({ id: "a", emo_point: 50, history: [{ role: "user", content: "hi" }] });
    for (const sub of ["one", "two"]) {
      mkdirSync(join(dir, sub));
      writeFileSync(join(dir, sub, "same_result.jsonl"), `${line}\n`);
    }
    const result = await runCli([
      "import",
      "sage",
      join(dir, "one", "same_result.jsonl"),
      join(dir, "two", "same_result.jsonl"),
      "--out",
      join(dir, "out"),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('would both become condition "same"');
  });
});

describe("importSageResults (library)", () => {
  it("refuses an empty file list", async () => {
    await expect(importSageResults([], temporaryDirectory())).rejects.toThrow(/no SAGE result file given/);
  });
});
