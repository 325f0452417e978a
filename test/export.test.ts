/**
 * `aeb export`: one row per dialogue or per turn, as CSV that Python's csv module reads back (texts
 * with commas, quotes, line breaks and U+2028 intact) and as Parquet that hyparquet reads back.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { KNOWN_FLAGS } from "../src/report/export-table.js";
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
  const script =
    "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n    r = csv.DictReader(f)\n    rows = list(r)\nprint(json.dumps({'header': r.fieldnames, 'rows': rows}))";
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
    expect(header).toContain("ecs_offline_lexicon");
    // Names that need no quoting in SQL, and every flag's column whether or not this run raised it.
    for (const name of header) expect(name).toMatch(/^[a-z_][a-z0-9_]*$/);
    for (const flag of KNOWN_FLAGS) expect(header).toContain(`flag_${flag.replace(":", "_")}`);
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
    const tricky = {
      ...first!,
      id: "x/tricky/0",
      turns: first!.turns.map((turn) => ({ ...turn, agent: { ...turn.agent, text: 'He said, "no"\nthen\u2028left' } })),
    };
    const { writeFileSync } = await import("node:fs");
    writeFileSync(out, `${JSON.stringify(tricky)}\n`);
    const result = await runCli(["export", dir, "--turns", "--out", join(dir, "t.csv")]);
    expect(result.code, result.stderr).toBe(0);
    const { rows } = pythonCsv(join(dir, "t.csv"));
    expect(rows).toHaveLength(tricky.turns.length);
    expect(rows[0]!.agent_text).toBe('He said, "no"\nthen\u2028left');
    expect(Number(rows[0]!.emotion)).toBe(tricky.turns[0]!.user.emotion);
  });

  it.skipIf(!python)(
    "neutralises CSV cells a spreadsheet would run as formulas (OWASP), numbers untouched; --raw-csv keeps them; Parquet keeps the texts",
    async () => {
      const dir = temporaryDirectory();
      const [first] = readDialogueRecords(run).records;
      const payloads = [
        "=cmd|' /C calc'!A0",
        '=HYPERLINK("http://evil.example","click")',
        "+1+1",
        "-2+3",
        "@SUM(A1:A2)",
        "\t=1+1",
        "\uFF1D1+1",
        "a normal reply = fine",
      ];
      const tricky = {
        ...first!,
        id: "x/formulas/0",
        turns: payloads.map((text, index) => ({ ...first!.turns[0]!, index, agent: { text, chars: text.length } })),
      };
      const { writeFileSync } = await import("node:fs");
      writeFileSync(join(dir, "dialogues.jsonl"), `${JSON.stringify(tricky)}\n`);
      expect((await runCli(["export", dir, "--turns", "--out", join(dir, "safe.csv")])).code).toBe(0);
      const safe = pythonCsv(join(dir, "safe.csv")).rows;
      expect(safe.map((row) => row.agent_text)).toEqual([...payloads.slice(0, 7).map((text) => `'${text}`), "a normal reply = fine"]);
      // A negative number is a number, not a formula.
      expect(safe.map((row) => row.delta)).toEqual(payloads.map(() => String(first!.turns[0]!.user.delta)));
      expect((await runCli(["export", dir, "--turns", "--raw-csv", "--out", join(dir, "raw.csv")])).code).toBe(0);
      expect(pythonCsv(join(dir, "raw.csv")).rows.map((row) => row.agent_text)).toEqual(payloads);
      expect((await runCli(["export", dir, "--turns", "--format", "parquet", "--out", join(dir, "t.parquet")])).code).toBe(0);
      const bytes = readFileSync(join(dir, "t.parquet"));
      const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Array<
        Record<string, unknown>
      >;
      expect(rows.map((row) => row.agent_text)).toEqual(payloads);
      const misuse = await runCli(["export", dir, "--format", "parquet", "--raw-csv"]);
      expect(misuse.code).toBe(1);
      expect(misuse.stderr).toContain("--raw-csv applies to --format csv only");
    },
  );

  it("writes Parquet whose seed is an integer and whose columns are the same for every run", async () => {
    const file = join(temporaryDirectory(), "dialogues.parquet");
    expect((await runCli(["export", run, "--format", "parquet", "--out", file])).code).toBe(0);
    const bytes = readFileSync(file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = (await parquetReadObjects({ file: buffer })) as Array<Record<string, unknown>>;
    const records = readDialogueRecords(run).records;
    expect(rows[0]!.seed).toBe(BigInt(records[0]!.seed));
    const { parquetMetadata, parquetSchema } = await import("hyparquet");
    const schema = parquetSchema(parquetMetadata(buffer));
    const seed = schema.children.find((child) => child.element.name === "seed");
    expect(seed?.element.type).toBe("INT64");
    const names = schema.children.map((child) => child.element.name);
    for (const flag of KNOWN_FLAGS) expect(names).toContain(`flag_${flag.replace(":", "_")}`);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it("writes Parquet that a Parquet reader reads back, per dialogue and per turn", async () => {
    const file = join(temporaryDirectory(), "turns.parquet");
    const result = await runCli(["export", run, "--turns", "--format", "parquet", "--out", file]);
    expect(result.code, result.stderr).toBe(0);
    const bytes = readFileSync(file);
    const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Array<
      Record<string, unknown>
    >;
    const records = readDialogueRecords(run).records;
    expect(rows).toHaveLength(records.reduce((sum, record) => sum + record.turns.length, 0));
    expect(rows[0]).toMatchObject({
      id: records[0]!.id,
      turn: 0,
      agent_text: records[0]!.turns[0]!.agent.text,
      emotion: records[0]!.turns[0]!.user.emotion,
    });
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
