/**
 * `aeb export`: a run directory as a flat table for spreadsheets and dataframes, one row per
 * dialogue (numbers, no text) or one row per turn (with the texts). CSV is written row by row as
 * the dialogues stream in (memory stays flat); Parquet (hyparquet-writer, pure JavaScript) collects
 * columns first. Columns are fixed by the run's judges and flags, found in a first streamed pass.
 */
import { parquetWriteFile } from "hyparquet-writer";
import { describeDialogueError, isAppraised, type DialogueRecord } from "../core/dialogue.js";
import { dialogueMetrics, type DialogueMetrics } from "../metrics/dialogue-metrics.js";
import { writeFileAtomicWith, writeWhole } from "../record/atomic-file.js";
import { scanDialogues } from "../record/dialogue-reader.js";

export type ExportFormat = "csv" | "parquet";
export type ExportGrain = "dialogues" | "turns";

type Cell = string | number | bigint | boolean | null;
type ColumnType = "STRING" | "DOUBLE" | "INT32" | "INT64" | "BOOLEAN";

/**
 * Every flag AEB writes (docs/output-format.md, `user.flags`): each gets its column in every export,
 * counted 0 where it never occurred, so a table has the same columns from run to run; a flag
 * outside this list (a newer AEB, an import) is added after them.
 */
export const KNOWN_FLAGS = [
  "formulaic",
  "repetition",
  "injection",
  "empty_reply",
  "think_format",
  "think_format:missing",
  "think_format:unclosed",
  "think_format:empty_reply",
  "think_format:nested",
  "out_of_character",
  "counsels_agent",
  "goodbye_words",
] as const;

/**
 * A column name that SQL engines (DuckDB, Spark, pandas' query) take without quoting: lower case
 * letters, digits and `_`, every other character (a judge named `offline-lexicon`, a flag
 * `think_format:missing`) becoming `_`.
 */
export function columnName(text: string): string {
  const name = text.toLowerCase().replace(/[^a-z0-9_]+/g, "_");
  return /^[a-z_]/.test(name) ? name : `_${name}`;
}

/** One row's source: the dialogue, the turn (per-turn tables), and the dialogue's metrics (computed once). */
interface RowSource {
  record: DialogueRecord;
  turn: number;
  metrics: DialogueMetrics;
}

interface Column {
  name: string;
  type: ColumnType;
  /** The cell of one row (a dialogue, or a turn of it). */
  value: (row: RowSource) => Cell;
}

/** What the columns depend on: the run's judges and flags, in order of first appearance. */
interface Shape {
  ecsJudges: string[];
  hidJudges: string[];
  flags: string[];
}

function shapeOf(dir: string): Shape {
  const ecs = new Set<string>();
  const hid = new Set<string>();
  const flags = new Set<string>();
  scanDialogues(dir, (record) => {
    for (const name of Object.keys(record.ecs ?? {})) ecs.add(name);
    for (const name of Object.keys(record.hid ?? {})) hid.add(name);
    for (const turn of record.turns) for (const flag of turn.user.flags) flags.add(flag);
  });
  const known = new Set<string>(KNOWN_FLAGS);
  return { ecsJudges: [...ecs], hidJudges: [...hid], flags: [...KNOWN_FLAGS, ...[...flags].filter((flag) => !known.has(flag)).sort()] };
}

const identity: Column[] = [
  { name: "id", type: "STRING", value: ({ record }) => record.id },
  { name: "condition", type: "STRING", value: ({ record }) => record.condition },
  { name: "scenario_id", type: "STRING", value: ({ record }) => record.scenarioId },
  { name: "type", type: "STRING", value: ({ record }) => record.type },
  { name: "repeat", type: "INT32", value: ({ record }) => record.repeat },
  { name: "preset", type: "STRING", value: ({ record }) => record.preset },
];

function dialogueColumns(shape: Shape): Column[] {
  return [
    ...identity,
    // INT64: a seed is an integer up to 2^53 - 1, which DOUBLE holds but shows as 3.0 in dataframes.
    { name: "seed", type: "INT64", value: ({ record }) => BigInt(record.seed) },
    { name: "status", type: "STRING", value: ({ record }) => record.status },
    { name: "end_reason", type: "STRING", value: ({ record }) => record.endReason },
    { name: "error", type: "STRING", value: ({ record }) => (record.error === undefined ? null : describeDialogueError(record.error)) },
    { name: "turns", type: "INT32", value: ({ record }) => record.turns.length },
    { name: "final_emotion", type: "INT32", value: ({ record }) => record.final.emotion },
    { name: "fs", type: "DOUBLE", value: ({ record }) => record.final.fs },
    { name: "collapsed", type: "BOOLEAN", value: ({ record }) => record.endReason === "collapse" },
    { name: "hid_simulator", type: "DOUBLE", value: ({ metrics }) => metrics.hid },
    { name: "mean_reply_chars", type: "DOUBLE", value: ({ metrics }) => metrics.meanReplyChars },
    { name: "mean_reply_words", type: "DOUBLE", value: ({ metrics }) => metrics.meanReplyWords },
    { name: "mean_reply_tokens", type: "DOUBLE", value: ({ metrics }) => metrics.meanReplyTokens ?? null },
    { name: "mean_think_chars", type: "DOUBLE", value: ({ metrics }) => metrics.meanThinkChars },
    ...shape.ecsJudges.flatMap((judge): Column[] =>
      (["score", "before", "after", "drop"] as const).map((part) => ({
        name: `ecs_${columnName(judge)}${part === "score" ? "" : `_${part}`}`,
        type: "DOUBLE",
        value: ({ record }) => record.ecs?.[judge]?.[part] ?? null,
      })),
    ),
    ...shape.hidJudges.map((judge): Column => ({
      name: `hid_${columnName(judge)}`,
      type: "DOUBLE",
      value: ({ record }) => record.hid?.[judge]?.value ?? null,
    })),
    ...shape.flags.map((flag): Column => ({
      name: `flag_${columnName(flag)}`,
      type: "INT32",
      value: ({ metrics }) => metrics.flags[flag] ?? 0,
    })),
  ];
}

function turnColumns(shape: Shape): Column[] {
  const turnOf = (record: DialogueRecord, index: number) => record.turns[index]!;
  return [
    ...identity,
    { name: "turn", type: "INT32", value: ({ turn: index }) => index },
    { name: "agent_text", type: "STRING", value: ({ record, turn: index }) => turnOf(record, index).agent.text },
    { name: "agent_think", type: "STRING", value: ({ record, turn: index }) => turnOf(record, index).agent.think ?? null },
    { name: "agent_chars", type: "INT32", value: ({ record, turn: index }) => turnOf(record, index).agent.chars },
    { name: "appraised", type: "BOOLEAN", value: ({ record, turn: index }) => isAppraised(turnOf(record, index)) },
    { name: "user_text", type: "STRING", value: ({ record, turn: index }) => turnOf(record, index).user.text ?? null },
    { name: "emotion", type: "INT32", value: ({ record, turn: index }) => turnOf(record, index).user.emotion },
    { name: "delta", type: "INT32", value: ({ record, turn: index }) => turnOf(record, index).user.delta ?? null },
    { name: "simulator_delta", type: "DOUBLE", value: ({ record, turn: index }) => turnOf(record, index).user.simulatorDelta ?? null },
    { name: "adjustments", type: "STRING", value: ({ record, turn: index }) => JSON.stringify(turnOf(record, index).user.adjustments) },
    { name: "flags", type: "STRING", value: ({ record, turn: index }) => turnOf(record, index).user.flags.join(";") },
    { name: "hid_simulator", type: "STRING", value: ({ record, turn: index }) => turnOf(record, index).user.hid ?? null },
    ...shape.ecsJudges.flatMap((judge): Column[] => [
      {
        name: `ecs_${columnName(judge)}_predicted`,
        type: "DOUBLE",
        value: ({ record, turn: index }) => record.ecs?.[judge]?.estimates?.find((estimate) => estimate.index === index)?.predicted ?? null,
      },
      {
        name: `ecs_${columnName(judge)}_confidence`,
        type: "DOUBLE",
        value: ({ record, turn: index }) =>
          record.ecs?.[judge]?.estimates?.find((estimate) => estimate.index === index)?.confidence ?? null,
      },
    ]),
  ];
}

/**
 * What a spreadsheet (Excel, LibreOffice, Google Sheets) reads as the start of a formula: `=`, `+`,
 * `-`, `@`, a tab or a carriage return (OWASP's list), and their full-width forms, which some
 * locales evaluate too.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; null is empty.
 * A text cell that a spreadsheet would evaluate (a reply beginning `=HYPERLINK(...)`) is
 * neutralised as OWASP advises: a `'` before it, so it opens as text; `raw` writes it as it is
 * (for programs, not spreadsheets). Numbers are never changed (-5 stays a number).
 */
export function csvField(cell: Cell, options: { raw?: boolean } = {}): string {
  if (cell === null) return "";
  let text = typeof cell === "number" && !Number.isFinite(cell) ? "" : String(cell);
  if (typeof cell === "string" && options.raw !== true && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes the table of a run directory; returns how many rows and the columns. */
export function exportRunTable(
  dir: string,
  options: { format: ExportFormat; grain: ExportGrain; file: string; rawCsv?: boolean },
): { rows: number; columns: string[] } {
  const shape = shapeOf(dir);
  const columns = uniqueNames(options.grain === "turns" ? turnColumns(shape) : dialogueColumns(shape));
  const field = (cell: Cell) => csvField(cell, { raw: options.rawCsv === true });
  const rowsOf = (record: DialogueRecord): number[] => (options.grain === "turns" ? record.turns.map((_turn, index) => index) : [0]);
  let rows = 0;
  // Written to a temporary file renamed over the target: a full disk leaves no half table.
  if (options.format === "csv") {
    writeFileAtomicWith(options.file, (fd) => {
      writeWhole(fd, `${columns.map((column) => csvField(column.name)).join(",")}\r\n`);
      scanDialogues(dir, (record) => {
        const metrics = dialogueMetrics(record);
        for (const turn of rowsOf(record)) {
          writeWhole(fd, `${columns.map((column) => field(column.value({ record, turn, metrics }))).join(",")}\r\n`);
          rows += 1;
        }
      });
    });
  } else {
    const data: Cell[][] = columns.map(() => []);
    scanDialogues(dir, (record) => {
      const metrics = dialogueMetrics(record);
      for (const turn of rowsOf(record)) {
        columns.forEach((column, position) => data[position]!.push(column.value({ record, turn, metrics })));
        rows += 1;
      }
    });
    writeFileAtomicWith(
      options.file,
      (_fd, temporary) =>
        parquetWriteFile({
          filename: temporary,
          columnData: columns.map((column, position) => ({
            name: column.name,
            type: column.type,
            data: data[position]!.map((cell) => (typeof cell === "number" && !Number.isFinite(cell) ? null : cell)),
          })),
          createdBy: "aeb export",
        }),
      { byPath: true },
    );
  }
  return { rows, columns: columns.map((column) => column.name) };
}

/** Two judges whose names differ only in characters a column name drops (`a-b`, `a b`) get `_2`, `_3`... */
function uniqueNames(columns: Column[]): Column[] {
  const seen = new Map<string, number>();
  return columns.map((column) => {
    const count = (seen.get(column.name) ?? 0) + 1;
    seen.set(column.name, count);
    return count === 1 ? column : { ...column, name: `${column.name}_${count}` };
  });
}
