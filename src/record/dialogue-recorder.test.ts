import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DialogueRecord } from "../core/dialogue.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import { readDialogueRecords, readDialogueRows, readScoredDialoguesById } from "./dialogue-reader.js";
import { DialogueRecorder } from "./dialogue-recorder.js";
import { DIALOGUES_FILE, ERRORS_FILE } from "./files.js";

function record(id: string, overrides: Partial<DialogueRecord> = {}): DialogueRecord {
  return {
    id,
    condition: id.split("/")[0] as string,
    scenarioId: "escalation-landlord",
    type: "escalation",
    repeat: 0,
    seed: 1,
    status: "done",
    endReason: "max_turns",
    preset: "aeb",
    manipulationTurn: 1,
    // U+2028 inside a string must not split the line.
    opening: { text: `opening of ${id}\u2028second line`, emotion: 40 },
    turns: [
      {
        index: 0,
        agent: { text: "I hear you.", chars: 11 },
        user: { text: "Do you?", emotion: 35, delta: -5, simulatorDelta: -5, adjustments: [], flags: [] },
      },
    ],
    final: { emotion: 35, fs: 0.35 },
    ...overrides,
  };
}

const line = (value: DialogueRecord) => `${JSON.stringify(value)}\n`;
const directories: string[] = [];
function runDirectory(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "aeb-run-directory-"));
  directories.push(dir);
  writeFileSync(join(dir, DIALOGUES_FILE), content);
  return dir;
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("DialogueRecorder (streamed repair)", () => {
  it("cuts a torn last line, moves errored dialogues aside, drops duplicates and keeps rows of the rest", () => {
    const errored = record("a/x/1", {
      status: "error",
      endReason: "error",
      error: { kind: "timeout", stage: "agent" as const, message: "timeout", retryable: true },
    });
    const first = record("a/x/0");
    const duplicate = record("a/x/0", { final: { emotion: 90, fs: 0.9 } });
    const second = record("b/x/0", { final: { emotion: 10, fs: 0.1 }, endReason: "collapse" });
    const dir = runDirectory(line(first) + line(errored) + line(duplicate) + line(second) + '{"id":"torn');
    const recorder = new DialogueRecorder(dir);
    recorder.close();
    expect(recorder.repaired).toEqual({ tornTail: true, erroredMoved: 1, duplicatesDropped: 1 });
    // Records are rewritten as validated (the schema's key order), one per line.
    const linesOf = (file: string) =>
      readFileSync(join(dir, file), "utf8")
        .split("\n")
        .filter((text) => text !== "")
        .map((text) => JSON.parse(text) as unknown);
    expect(linesOf(DIALOGUES_FILE)).toEqual([first, second]);
    expect(linesOf(ERRORS_FILE)).toEqual([errored]);
    expect([...recorder.finished]).toEqual([first.id, second.id]);
  });

  it("adds the missing newline after a complete last line, and appends after it", () => {
    const first = record("a/x/0");
    const dir = runDirectory(JSON.stringify(first));
    const recorder = new DialogueRecorder(dir);
    const next = record("a/x/1", { repeat: 1 });
    recorder.append(next);
    recorder.append(
      record("a/x/2", {
        repeat: 2,
        status: "error",
        endReason: "error",
        error: { kind: "timeout", stage: "agent" as const, message: "timeout", retryable: true },
      }),
    );
    recorder.close();
    expect(recorder.repaired).toEqual({ tornTail: false, erroredMoved: 0, duplicatesDropped: 0 });
    expect(readDialogueRecords(dir).records.map((value) => value.id)).toEqual(["a/x/0", "a/x/1", "a/x/2"]);
    // Only finished dialogues count as finished; the errored one is retried next time.
    expect([...recorder.finished]).toEqual(["a/x/0", "a/x/1"]);
    expect(existsSync(join(dir, ERRORS_FILE))).toBe(false);
  });

  it("sets errored records aside once, even when a kill came between writing the errors file and replacing dialogues.jsonl", () => {
    const errored = record("a/x/1", {
      status: "error",
      endReason: "error",
      error: { kind: "timeout", stage: "agent" as const, message: "timeout", retryable: true },
    });
    const dir = runDirectory(line(record("a/x/0")) + line(errored));
    // The state a kill leaves after the errors file was written but before dialogues.jsonl was replaced.
    writeFileSync(join(dir, ERRORS_FILE), line(errored));
    const recorder = new DialogueRecorder(dir);
    recorder.close();
    expect(recorder.repaired.erroredMoved).toBe(1);
    expect(readFileSync(join(dir, ERRORS_FILE), "utf8")).toBe(line(errored));
    expect(readDialogueRecords(dir).records.map((value) => value.id)).toEqual(["a/x/0"]);
  });

  it("keeps each kept line's bytes when it moves errored records aside (key order and number spelling as written)", () => {
    // Lines as another writer (Python's json.dumps, an older AEB) may have spelled them: other key order, 1.0 for 1.
    const { status, ...rest } = record("a/1");
    const kept = JSON.stringify({ status, ...rest }).replace('"seed":1,', '"seed":1.0,');
    expect(kept).toContain('"seed":1.0,');
    const errored = `${JSON.stringify(record("a/2", { status: "error", error: { kind: "unexpected", stage: "agent", message: "boom", retryable: true } })).slice(0, -1)}, "extra": 1}`;
    const also = JSON.stringify(record("b/1"));
    const dir = runDirectory(`${kept}\n${errored}\n${also}\n`);
    const recorder = new DialogueRecorder(dir);
    recorder.close();
    expect(recorder.repaired.erroredMoved).toBe(1);
    expect(readFileSync(join(dir, DIALOGUES_FILE), "utf8")).toBe(`${kept}\n${also}\n`);
    expect(readFileSync(join(dir, ERRORS_FILE), "utf8")).toBe(`${errored}\n`);
  });

  it("creates dialogues.jsonl only when the first record is appended", () => {
    const dir = mkdtempSync(join(tmpdir(), "aeb-run-directory-"));
    directories.push(dir);
    const recorder = new DialogueRecorder(dir);
    expect(existsSync(join(dir, DIALOGUES_FILE))).toBe(false);
    recorder.append(record("a/x/0"));
    recorder.close();
    expect(readDialogueRecords(dir).records).toHaveLength(1);
  });

  it("refuses a file with a bad line in the middle, naming the line", () => {
    const dir = runDirectory(line(record("a/x/0")) + "not json\n" + line(record("a/x/1")));
    expect(() => new DialogueRecorder(dir)).toThrow(/line 2 is not valid JSON/);
  });

  it("refuses a line that is JSON but not a dialogue record", () => {
    const dir = runDirectory(line(record("a/x/0")) + '{"id":"a/x/1"}\n');
    expect(() => new DialogueRecorder(dir)).toThrow(/line 2 is not a dialogue record/);
  });
});

describe("streamed reads of dialogues.jsonl", () => {
  it("gives the rows of readDialogues' records, and of a few ids the first scored record", () => {
    const records = [
      record("a/x/0"),
      record("b/x/0", {
        status: "error",
        endReason: "error",
        error: { kind: "timeout", stage: "agent" as const, message: "timeout", retryable: true },
      }),
      record("b/x/0"),
      record("c/x/0"),
    ];
    const dir = runDirectory(records.map(line).join(""));
    appendFileSync(join(dir, DIALOGUES_FILE), '{"id":"c/x/1","torn');
    const read = readDialogueRows(dir);
    expect(read.tornTail).toBe(true);
    // The rows are column-store views (dialogue-row-store.ts): their plain form is the row of each record.
    expect(read.rows.map((row) => row.plain())).toStrictEqual(readDialogueRecords(dir).records.map(dialogueRow));
    expect(JSON.parse(JSON.stringify(read.rows))).toStrictEqual(readDialogueRecords(dir).records.map(dialogueRow));
    const found = readScoredDialoguesById(dir, new Set(["b/x/0", "c/x/0", "missing"]));
    expect([...found.keys()]).toEqual(["b/x/0", "c/x/0"]);
    expect(found.get("b/x/0")).toEqual(records[2]);
  });

  it("finds an asked-for id whether or not its line begins with it, and leaves other lines unparsed", () => {
    // Key order as the recorder writes it, a quote escaped in the id, an id that is not the first key.
    const escaped = record('q/"quoted"/0');
    const { id, ...rest } = record("r/x/0");
    const later = `${JSON.stringify({ ...rest, id })}\n`;
    const dir = runDirectory(line(record("a/x/0")) + '{"id":"skipped/x/0", not json\n' + line(escaped) + later + line(record("c/x/0")));
    const found = readScoredDialoguesById(dir, new Set(['q/"quoted"/0', "r/x/0", "c/x/0"]));
    expect([...found.keys()]).toEqual(['q/"quoted"/0', "r/x/0", "c/x/0"]);
    expect(found.get('q/"quoted"/0')).toEqual(escaped);
    expect(found.get("r/x/0")).toEqual({ ...rest, id });
    // A full read of the same file validates every line, the one that is not JSON included.
    expect(() => readDialogueRecords(dir)).toThrow(/line 2 is not valid JSON/);
  });
});
