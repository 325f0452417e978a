import { createHash } from "node:crypto";
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync, accessSync, constants } from "node:fs";
import { join } from "node:path";
import { DialogueRecordSchema, type DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { scanJsonlFile, type JsonlFileScan } from "../core/jsonl.js";
import { dialogueRow, type DialogueRow } from "../metrics/dialogue-row.js";

export const DIALOGUES_FILE = "dialogues.jsonl";
export const ERRORS_FILE = "dialogues.errors.jsonl";
export const MANIFEST_FILE = "run.json";
export const SUMMARY_FILE = "summary.json";

/** Stable JSON (sorted keys) so hashes and files do not depend on key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function hashOf(value: unknown): string {
  return createHash("sha256").update(stableStringify(value)).digest("hex").slice(0, 16);
}

export interface Manifest {
  format: 1;
  /** Hash of everything that decides the results (not concurrency). */
  configHash: string;
  config: unknown;
}

/** Creates the directory (or checks it can be written) with a message that names it. */
export function ensureWritableDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new RunDirectoryError(`output directory ${dir} cannot be written: ${(error as Error).message}`);
  }
}

/**
 * Checks that a run directory belongs to this config, or claims a fresh one. Resuming into a
 * directory made with another config is refused unless `force`.
 */
export function claimRunDirectory(dir: string, manifest: Manifest, force: boolean): { resumed: boolean } {
  ensureWritableDirectory(dir);
  const path = join(dir, MANIFEST_FILE);
  if (existsSync(path)) {
    let existing: Manifest;
    try {
      existing = JSON.parse(readFileSync(path, "utf8")) as Manifest;
    } catch (error) {
      throw new RunDirectoryError(`${path} is not valid JSON (${(error as Error).message}); move it away or choose another --out`);
    }
    if (existing.configHash !== manifest.configHash && !force) {
      throw new RunDirectoryError(
        `${dir} holds a run made with a different config (hash ${existing.configHash}, now ${manifest.configHash}); ` +
          "use another --out, or --force to continue it under the new config (finished dialogues that are still in the plan are kept)",
      );
    }
    if (existing.configHash === manifest.configHash) return { resumed: true };
  } else if (existsSync(join(dir, DIALOGUES_FILE)) && !force) {
    throw new RunDirectoryError(`${dir} has ${DIALOGUES_FILE} but no ${MANIFEST_FILE}; use --force to adopt it or choose another --out`);
  }
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  return { resumed: existsSync(join(dir, DIALOGUES_FILE)) };
}

/** Validates one parsed line of dialogues.jsonl; the error names the file and line. */
function dialogueOf(path: string, line: number, value: unknown): DialogueRecord | RunDirectoryError {
  const record = DialogueRecordSchema.safeParse(value);
  if (!record.success) return new RunDirectoryError(`${path} line ${line} is not a dialogue record:\n${formatIssues(record.error.issues)}`);
  return record.data;
}

/** The error for lines that are not JSON (a torn last line excepted): the first, and the count. */
function invalidLinesError(path: string, invalid: JsonlFileScan["invalid"]): RunDirectoryError | undefined {
  const first = invalid[0];
  return first === undefined ? undefined : new RunDirectoryError(`${path} line ${first.line} is not valid JSON (${first.message}); ${invalid.length} bad line(s) in all`);
}

/**
 * Streams the dialogues of a run directory to `visit`, validated, in file order, one at a time, so
 * memory does not grow with the file. The errors are {@link readDialogues}'s: a line that is not
 * JSON (a torn last line excepted), then a line that is not a dialogue record; they are thrown
 * once the file has been read, so when this throws, what was visited must be discarded.
 */
export function forEachDialogue(dir: string, visit: (record: DialogueRecord, line: number) => void, options: { allowTornTail?: boolean } = {}): { tornTail: boolean } {
  const path = join(dir, DIALOGUES_FILE);
  if (!existsSync(path)) return { tornTail: false };
  let schemaError: RunDirectoryError | undefined;
  const scan = scanJsonlFile(path, (value, line) => {
    if (schemaError !== undefined) return;
    const record = dialogueOf(path, line, value);
    if (record instanceof RunDirectoryError) schemaError = record;
    else visit(record, line);
  });
  const invalid = invalidLinesError(path, scan.invalid);
  if (invalid !== undefined) throw invalid;
  if (scan.tornTail && options.allowTornTail === false) throw new RunDirectoryError(`${path} ends with a torn line`);
  if (schemaError !== undefined) throw schemaError;
  return { tornTail: scan.tornTail };
}

/** Reads and validates every dialogue of a run directory; errors name the file and line. */
export function readDialogues(dir: string, options: { allowTornTail?: boolean } = {}): { records: DialogueRecord[]; tornTail: boolean } {
  const records: DialogueRecord[] = [];
  const { tornTail } = forEachDialogue(dir, (record) => records.push(record), options);
  return { records, tornTail };
}

/** Every dialogue of a run directory as a compact row (metrics/dialogue-row.ts), in file order, read in one streamed pass. */
export function readDialogueRows(dir: string): { rows: DialogueRow[]; tornTail: boolean } {
  const rows: DialogueRow[] = [];
  const { tornTail } = forEachDialogue(dir, (record) => rows.push(dialogueRow(record)));
  return { rows, tornTail };
}

/**
 * The full records of a few scored dialogues, by id, read in one streamed pass that keeps only
 * those: what the reports show with text (the worst dialogues' transcripts) when everything else
 * comes from rows. Other lines are parsed but not validated (the pass that made the rows did
 * that); of duplicate ids (which the recorder never leaves) the first scored record is taken.
 */
export function readScoredDialoguesById(dir: string, ids: ReadonlySet<string>): Map<string, DialogueRecord> {
  const found = new Map<string, DialogueRecord>();
  const path = join(dir, DIALOGUES_FILE);
  if (ids.size === 0 || !existsSync(path)) return found;
  scanJsonlFile(path, (value, line) => {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || !ids.has(id) || found.has(id)) return;
    const record = dialogueOf(path, line, value);
    if (record instanceof RunDirectoryError) throw record;
    if (record.status === "done") found.set(id, record);
  });
  return found;
}

/**
 * Appends dialogue records, one line per write, so that a kill can tear at most the last line.
 * On open it repairs the file: a torn last line is cut off, errored dialogues are moved to
 * `dialogues.errors.jsonl` (to be retried) and duplicate ids keep their first record.
 *
 * Memory stays flat however long the run: the file is read in streamed passes, and of each
 * finished dialogue only its compact row (metrics/dialogue-row.ts) is kept, never the record.
 */
export class DialogueRecorder {
  private readonly fd: number;
  /** The finished (status `done`) dialogues, on disk and appended since, as compact rows by id, in file order. */
  readonly finished = new Map<string, DialogueRow>();
  readonly repaired: { tornTail: boolean; erroredMoved: number; duplicatesDropped: number };

  constructor(readonly dir: string) {
    const path = join(dir, DIALOGUES_FILE);
    this.repaired = { tornTail: false, erroredMoved: 0, duplicatesDropped: 0 };
    if (existsSync(path)) {
      // One streamed pass validates every line and keeps the rows; the file is repaired after it.
      let errored = 0;
      let schemaError: RunDirectoryError | undefined;
      const scan = scanJsonlFile(path, (value, line) => {
        if (schemaError !== undefined) return;
        const record = dialogueOf(path, line, value);
        if (record instanceof RunDirectoryError) schemaError = record;
        else if (record.status === "error") errored += 1;
        else if (this.finished.has(record.id)) this.repaired.duplicatesDropped += 1;
        else this.finished.set(record.id, dialogueRow(record));
      });
      if (scan.tornTail) {
        truncateSync(path, scan.validPrefixBytes);
        this.repaired.tornTail = true;
      } else if (scan.bytes > 0 && !scan.endsWithNewline) {
        appendFileSync(path, "\n");
      }
      const invalid = invalidLinesError(path, scan.invalid) ?? schemaError;
      if (invalid !== undefined) throw invalid;
      if (errored > 0 || this.repaired.duplicatesDropped > 0) {
        this.setErroredAndDuplicatesAside(path);
        this.repaired.erroredMoved = errored;
      }
    }
    this.fd = openSync(path, "a");
  }

  /**
   * Moves errored records to the errors file and drops duplicates (the first of an id is kept),
   * streaming into a temporary file that then replaces dialogues.jsonl. Records are written as
   * validated, as they were before this was streamed.
   */
  private setErroredAndDuplicatesAside(path: string): void {
    const temporary = `${path}.tmp`;
    const out = openSync(temporary, "w");
    const kept = new Set<string>();
    try {
      scanJsonlFile(path, (value) => {
        const record = DialogueRecordSchema.parse(value);
        if (record.status === "error") appendFileSync(join(this.dir, ERRORS_FILE), `${JSON.stringify(record)}\n`);
        else if (!kept.has(record.id)) {
          kept.add(record.id);
          writeSync(out, `${JSON.stringify(record)}\n`);
        }
      });
    } finally {
      closeSync(out);
    }
    renameSync(temporary, path);
  }

  append(record: DialogueRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    if (record.status === "done") this.finished.set(record.id, dialogueRow(record));
  }

  close(): void {
    closeSync(this.fd);
  }
}
