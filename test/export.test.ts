/**
 * `aeb export`: one row per dialogue or per turn, as CSV that Python's csv module reads back (texts
 * with commas, quotes, line breaks and U+2028 intact) and as Parquet that hyparquet reads back.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const python = spawnSync("python3", ["--version"]).status === 0;
let run: string;
beforeAll(async () => {
  run = join(temporaryDirectory(), "run");
  const result = await runCli(["run", "--suite", "starter", "--types", "escalation,gaslighting", "--out", run, "--no-progress"]);
  expect(result.code, result.stderr).toBe(0);
});

/** What Python's csv module reads from a file: the header, and the rows as dicts. */
function pythonCsv(file: string): { header: string[]; rows: Array<Record<string, string>> } {
  const script = "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n    r = csv.DictReader(f)\n    rows = list(r)\nprint(json.dumps({'header': r.fieldnames, 'rows': rows}))";
  const result = spawnSync("python3", ["-c", script, file], { encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { header: string[]; rows: Array<Record<string, string>> };
}

describe("aeb export", () => {
  it.skipIf(!python)("writes one CSV row per dialogue that Python's csv module reads back", async () => {
    const result = await runCli(["export", run]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^wrote 20 row\(s\) x \d+ column\(s\) -> .*dialogues\.csv/);
    const { header, rows } = pythonCsv(join(run, "dialogues.csv"));
    expect(header.slice(0, 6)).toEqual(["id", "condition", "scenario_id", "type", "repeat", "preset"]);
    expect(header).toContain("ecs_offline-lexicon");
    const records = readDialogueRecords(run).records;
    expect(rows).toHaveLength(records.length);
    for (const [index, record] of records.entries()) {
      expect(rows[index]!.id).toBe(record.id);
      expect(Number(rows[index]!.fs)).toBe(record.final.fs);
      expect(rows[index]!.end_reason).toBe(record.endReason);
    }
  });

  it.skipIf(!python)("writes one CSV row per turn with the texts intact, commas, quotes, line breaks and U+2028 included", async () => {
    const dir = temporaryDirectory();
    const out = join(dir, "dialogues.jsonl");
    // A dialogue whose texts hold every character CSV must quote.
    const [first] = readDialogueRecords(run).records;
    const tricky = { ...first!, id: "x/tricky/0", turns: first!.turns.map((turn) => ({ ...turn, agent: { ...turn.agent, text: 'He said, "no"\nthen\u2028left' } })) };
    const { writeFileSync } = await import("node:fs");
    writeFileSync(out, `${JSON.stringify(tricky)}\n`);
    const result = await runCli(["export", dir, "--turns", "--out", join(dir, "t.csv")]);
    expect(result.code, result.stderr).toBe(0);
    const { rows } = pythonCsv(join(dir, "t.csv"));
    expect(rows).toHaveLength(tricky.turns.length);
    expect(rows[0]!.agent_text).toBe('He said, "no"\nthen\u2028left');
    expect(Number(rows[0]!.emotion)).toBe(tricky.turns[0]!.user.emotion);
  });

  it("writes Parquet that a Parquet reader reads back, per dialogue and per turn", async () => {
    const file = join(temporaryDirectory(), "turns.parquet");
    const result = await runCli(["export", run, "--turns", "--format", "parquet", "--out", file]);
    expect(result.code, result.stderr).toBe(0);
    const bytes = readFileSync(file);
    const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Array<Record<string, unknown>>;
    const records = readDialogueRecords(run).records;
    expect(rows).toHaveLength(records.reduce((sum, record) => sum + record.turns.length, 0));
    expect(rows[0]).toMatchObject({ id: records[0]!.id, turn: 0, agent_text: records[0]!.turns[0]!.agent.text, emotion: records[0]!.turns[0]!.user.emotion });
  });

  it("names a directory that is not a run, and a bad format", async () => {
    const missing = await runCli(["export", join(temporaryDirectory(), "nothing")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/run directory .* does not exist/);
    const bad = await runCli(["export", run, "--format", "xlsx"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('expected csv or parquet, got "xlsx"');
  });
});
