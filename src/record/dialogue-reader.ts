import { existsSync } from "node:fs";
import { join } from "node:path";
import { DialogueRecordSchema, type DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { scanJsonlFile } from "../core/jsonl.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import { DialogueRowStore, type StoredRow } from "./dialogue-row-store.js";
import { DIALOGUES_FILE } from "./files.js";
import { invalidLinesError } from "./jsonl-file.js";
import { readJudgements, withJudgements, type FoldedJudgements } from "./judgements.js";

/** Validates one parsed line of dialogues.jsonl; the error names the file and line. */
export function dialogueOf(path: string, line: number, value: unknown): DialogueRecord | RunDirectoryError {
  const record = DialogueRecordSchema.safeParse(value);
  if (!record.success) return new RunDirectoryError(`${path} line ${line} is not a dialogue record:\n${formatIssues(record.error.issues)}`);
  return record.data;
}

export interface DialogueScanOptions {
  /** Lay judgements.jsonl over each record (default true): what every reader of results wants. */
  judgements?: boolean;
  /** Refuse a torn last line instead of leaving it out (default false). */
  allowTornTail?: boolean;
  /**
   * Only these ids are validated and visited; other lines are parsed but not validated (for
   * reading back a few records after a pass that validated them all).
   */
  ids?: ReadonlySet<string>;
}

/** The id at the start of a line as JSON.stringify writes a record (`{"id":"..."`), when it has no escape; other lines are parsed to find theirs. */
const LEADING_ID = /^\{"id":"([^"\\]*)"/;

/** Called with each record, its 1-based line, and where the line's text lies in the file (byte `offset` and length, newline excluded). */
export type DialogueVisitor = (record: DialogueRecord, line: number, offset: number, bytes: number) => void;

/**
 * The one reader of dialogues.jsonl: streams its records to `visit`, validated, in file order, one
 * at a time (memory does not grow with the file), with the later judgements laid over them. A
 * line that is not JSON (a torn last line excepted), then a line that is not a dialogue record,
 * is an error thrown once the file has been read: when this throws, what was visited must be
 * discarded.
 */
export function scanDialogues(dir: string, visit: DialogueVisitor, options: DialogueScanOptions = {}): { tornTail: boolean } {
  const path = join(dir, DIALOGUES_FILE);
  if (!existsSync(path)) return { tornTail: false };
  const judgements: ReadonlyMap<string, FoldedJudgements> = options.judgements === false ? new Map() : readJudgements(dir);
  const ids = options.ids;
  let schemaError: RunDirectoryError | undefined;
  // A line the recorder wrote begins with its id: one that is not asked for is dropped unparsed.
  const skip =
    ids === undefined
      ? undefined
      : (text: string) => {
          const id = LEADING_ID.exec(text)?.[1];
          return id !== undefined && !ids.has(id);
        };
  const scan = scanJsonlFile(
    path,
    (value, line, offset, bytes) => {
      if (schemaError !== undefined) return;
      if (ids !== undefined) {
        const id = (value as { id?: unknown } | null)?.id;
        if (typeof id !== "string" || !ids.has(id)) return;
      }
      const record = dialogueOf(path, line, value);
      if (record instanceof RunDirectoryError) schemaError = record;
      else visit(withJudgements(record, judgements), line, offset, bytes);
    },
    skip === undefined ? {} : { skip },
  );
  const invalid = invalidLinesError(path, scan.invalid);
  if (invalid !== undefined) throw invalid;
  if (scan.tornTail && options.allowTornTail === false) throw new RunDirectoryError(`${path} ends with a torn line`);
  if (schemaError !== undefined) throw schemaError;
  return { tornTail: scan.tornTail };
}

/** Every dialogue of a run directory as a full record (judgements merged), in file order. For small runs, tests and imports. */
export function readDialogueRecords(dir: string, options: DialogueScanOptions = {}): { records: DialogueRecord[]; tornTail: boolean } {
  const records: DialogueRecord[] = [];
  const { tornTail } = scanDialogues(dir, (record) => records.push(record), options);
  return { records, tornTail };
}

/**
 * Every dialogue of a run directory as a compact row (metrics/dialogue-row.ts, judgements merged),
 * read in one streamed pass: each record is dropped once its row is made, and the rows are held
 * column by column (dialogue-row-store.ts): about 200 bytes per dialogue (20 MB for 100,000).
 * Each row is a read-only view whose getters rebuild its fields; `row.plain()` (or JSON) gives it
 * as a plain object.
 */
export function readDialogueRows(dir: string, options: DialogueScanOptions = {}): { rows: StoredRow[]; tornTail: boolean } {
  const rows: StoredRow[] = [];
  const store = new DialogueRowStore();
  const { tornTail } = scanDialogues(dir, (record) => rows.push(store.add(dialogueRow(record))), options);
  return { rows, tornTail };
}

/**
 * The full records of a few scored dialogues, by id (judgements merged): what the reports show
 * with text when everything else comes from rows. Of duplicate ids (which the recorder never
 * leaves) the first scored record is taken.
 */
export function readScoredDialoguesById(dir: string, ids: ReadonlySet<string>): Map<string, DialogueRecord> {
  const found = new Map<string, DialogueRecord>();
  if (ids.size === 0) return found;
  scanDialogues(
    dir,
    (record) => {
      if (record.status === "done" && !found.has(record.id)) found.set(record.id, record);
    },
    { ids },
  );
  return found;
}
