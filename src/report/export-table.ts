/**
 * `aeb export`: a run directory as a flat table for spreadsheets and dataframes, one row per
 * dialogue (numbers, no text) or one row per turn (with the texts). CSV is written row by row as
 * the dialogues stream in (memory stays flat); Parquet (hyparquet-writer, pure JavaScript) collects
 * columns first. Columns are fixed by the run's judges and flags, found in a first streamed pass.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { parquetWriteFile } from "hyparquet-writer";
import { describeDialogueError, isAppraised, type DialogueRecord } from "../core/dialogue.js";
import { dialogueMetrics, type DialogueMetrics } from "../metrics/dialogue-metrics.js";
import { scanDialogues } from "../record/dialogue-reader.js";

export type ExportFormat = "csv" | "parquet";
export type ExportGrain = "dialogues" | "turns";

type Cell = string | number | boolean | null;
type ColumnType = "STRING" | "DOUBLE" | "INT32" | "BOOLEAN";

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
  return { ecsJudges: [...ecs], hidJudges: [...hid], flags: [...flags].sort() };
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
    { name: "seed", type: "DOUBLE", value: ({ record }) => record.seed },
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
      (["score", "before", "after", "drop"] as const).map((part) => ({ name: `ecs_${judge}${part === "score" ? "" : `_${part}`}`, type: "DOUBLE", value: ({ record }) => record.ecs?.[judge]?.[part] ?? null })),
    ),
    ...shape.hidJudges.map((judge): Column => ({ name: `hid_${judge}`, type: "DOUBLE", value: ({ record }) => record.hid?.[judge]?.value ?? null })),
    ...shape.flags.map((flag): Column => ({ name: `flag_${flag}`, type: "INT32", value: ({ metrics }) => metrics.flags[flag] ?? 0 })),
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
      { name: `ecs_${judge}_predicted`, type: "DOUBLE", value: ({ record, turn: index }) => record.ecs?.[judge]?.estimates?.find((estimate) => estimate.index === index)?.predicted ?? null },
      { name: `ecs_${judge}_confidence`, type: "DOUBLE", value: ({ record, turn: index }) => record.ecs?.[judge]?.estimates?.find((estimate) => estimate.index === index)?.confidence ?? null },
    ]),
  ];
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; null is empty. */
export function csvField(cell: Cell): string {
  if (cell === null) return "";
  const text = typeof cell === "number" && !Number.isFinite(cell) ? "" : String(cell);
  return /[",\r\n]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes the table of a run directory; returns how many rows and the columns. */
export function exportRunTable(dir: string, options: { format: ExportFormat; grain: ExportGrain; file: string }): { rows: number; columns: string[] } {
  const shape = shapeOf(dir);
  const columns = options.grain === "turns" ? turnColumns(shape) : dialogueColumns(shape);
  const rowsOf = (record: DialogueRecord): number[] => (options.grain === "turns" ? record.turns.map((_turn, index) => index) : [0]);
  let rows = 0;
  if (options.format === "csv") {
    const fd = openSync(options.file, "w");
    try {
      writeSync(fd, `${columns.map((column) => csvField(column.name)).join(",")}\r\n`);
      scanDialogues(dir, (record) => {
        const metrics = dialogueMetrics(record);
        for (const turn of rowsOf(record)) {
          writeSync(fd, `${columns.map((column) => csvField(column.value({ record, turn, metrics }))).join(",")}\r\n`);
          rows += 1;
        }
      });
    } finally {
      closeSync(fd);
    }
  } else {
    const data: Cell[][] = columns.map(() => []);
    scanDialogues(dir, (record) => {
      const metrics = dialogueMetrics(record);
      for (const turn of rowsOf(record)) {
        columns.forEach((column, position) => data[position]!.push(column.value({ record, turn, metrics })));
        rows += 1;
      }
    });
    parquetWriteFile({
      filename: options.file,
      columnData: columns.map((column, position) => ({
        name: column.name,
        type: column.type,
        data: data[position]!.map((cell) => (typeof cell === "number" && !Number.isFinite(cell) ? null : cell)),
      })),
      createdBy: "aeb export",
    });
  }
  return { rows, columns: columns.map((column) => column.name) };
}
