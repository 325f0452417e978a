import type { DialogueError, DialogueRecord } from "../core/dialogue.js";
import { dialogueMetrics, type DialogueMetrics } from "./dialogue-metrics.js";

/**
 * One ECS judge's numbers on a dialogue, as found on the record: any number is kept as it is
 * (the summary takes numbers, the reports only finite ones), anything else becomes null.
 */
export interface EcsRow {
  /**
   * The judgement's `judge` field: the id of the judge that made it (`offline-lexicon`,
   * `llm-ecs:MODEL`...), which says what kind of judge it is whatever name the config gave it;
   * null when the entry carries none.
   */
  judge: string | null;
  score: number | null;
  before: number | null;
  after: number | null;
  drop: number | null;
  /** Turns the judge could not read (the length of the entry's `errors`), imputed or excluded. */
  errors: number;
  /** How many of those were scored p=50, c=0 (the entry's `imputed`; the rest were left out of the scores). */
  imputed: number;
  /** What the judge did with unreadable turns (the entry's `unreadableTurn`); null when the entry does not say. */
  unreadableTurn: "exclude" | "impute-50" | null;
}

/** One independent HID judge's verdict on a dialogue. */
export interface HidRow {
  value: number | null;
  /** Whether the entry carries an `error` (a verdict left out). */
  error: boolean;
}

/**
 * A dialogue reduced to what summary.json, the report tables and the charts are computed from:
 * identity, outcome, the per-dialogue metrics, the emotion after each step and the judges'
 * numbers, without any text. A run keeps one row per dialogue in memory instead of the record
 * (held column by column by record/dialogue-row-store.ts: about 200 bytes instead of several
 * kilobytes), so memory stays flat however long the run;
 * what shows text (the worst dialogues' transcripts) is read back from dialogues.jsonl.
 * Everything computed from rows equals what the same code computed from the records.
 */
export interface DialogueRow {
  id: string;
  condition: string;
  scenarioId: string;
  type: string;
  preset: string;
  repeat: number;
  status: DialogueRecord["status"];
  endReason: DialogueRecord["endReason"];
  /** Why the dialogue failed, with `status: error`. */
  error?: DialogueError;
  metrics: DialogueMetrics;
  /** The opening's emotion, then the emotion the user reported after each agent reply. */
  emotions: number[];
  finalEmotion: number;
  /** By judge name, in the record's key order (the order judges are found in). */
  ecs: Record<string, EcsRow>;
  hid: Record<string, HidRow>;
}

const numberOrNull = (value: unknown): number | null => (typeof value === "number" ? value : null);

/** The row of one ECS entry (`record.ecs[judge]`, or a judgement line's). */
export function ecsRowOf(entry: unknown): EcsRow {
  const fields = (entry ?? {}) as {
    judge?: unknown;
    score?: unknown;
    before?: unknown;
    after?: unknown;
    drop?: unknown;
    errors?: { length?: number };
    imputed?: unknown;
    unreadableTurn?: unknown;
    estimates?: unknown;
  };
  // An entry without the count (written before it was) still marks each imputed estimate.
  const markedImputed = Array.isArray(fields.estimates)
    ? fields.estimates.filter((estimate) => (estimate as { imputed?: unknown } | null)?.imputed === true).length
    : 0;
  return {
    judge: typeof fields.judge === "string" ? fields.judge : null,
    score: numberOrNull(fields.score),
    before: numberOrNull(fields.before),
    after: numberOrNull(fields.after),
    drop: numberOrNull(fields.drop),
    errors: fields.errors?.length ?? 0,
    imputed: typeof fields.imputed === "number" ? fields.imputed : markedImputed,
    unreadableTurn: fields.unreadableTurn === "exclude" || fields.unreadableTurn === "impute-50" ? fields.unreadableTurn : null,
  };
}

/** The row of one HID entry (`record.hid[judge]`, or a judgement line's). */
export function hidRowOf(entry: unknown): HidRow {
  const fields = (entry ?? {}) as { value?: unknown; error?: unknown };
  return { value: numberOrNull(fields.value), error: fields.error !== undefined };
}

/** Rows of a map of judges' entries, keeping its key order. */
export function judgeRows<T>(entries: Readonly<Record<string, unknown>> | undefined, rowOf: (entry: unknown) => T): Record<string, T> {
  const rows: Record<string, T> = {};
  for (const [name, entry] of Object.entries(entries ?? {})) rows[name] = rowOf(entry);
  return rows;
}

export function dialogueRow(record: DialogueRecord): DialogueRow {
  return {
    id: record.id,
    condition: record.condition,
    scenarioId: record.scenarioId,
    type: record.type,
    preset: record.preset,
    repeat: record.repeat,
    status: record.status,
    endReason: record.endReason,
    ...(record.error !== undefined ? { error: record.error } : {}),
    metrics: dialogueMetrics(record),
    emotions: [record.opening.emotion, ...record.turns.map((turn) => turn.user.emotion)],
    finalEmotion: record.final.emotion,
    ecs: judgeRows(record.ecs, ecsRowOf),
    hid: judgeRows(record.hid, hidRowOf),
  };
}

/** The named judge's ECS of a dialogue, or null when that judge did not (or could not) score it. */
export function rowEcs(row: DialogueRow, judge: string): number | null {
  return row.ecs[judge]?.score ?? null;
}

/** The named HID judge's value of a dialogue (1 / 0.5 / 0), or null. */
export function rowHid(row: DialogueRow, judge: string): number | null {
  return row.hid[judge]?.value ?? null;
}

/** Rows in id order (a stable sort, as the record-based code sorts records). */
export function sortedById<T extends { id: string }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
