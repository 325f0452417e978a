import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { writeFileAtomic, writeWhole } from "./atomic-file.js";
import { join } from "node:path";
import { DialogueRecordSchema, type DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { scanJsonlFile, type JsonlFileScan } from "../core/jsonl.js";
import { stableStringify } from "../core/stable-json.js";
import { dialogueOf } from "./dialogue-reader.js";
import { DIALOGUES_FILE, ERRORS_FILE } from "./files.js";
import { invalidLinesError, JsonlAppender, repairJsonlTail } from "./jsonl-file.js";
import { writingFile } from "./write-error.js";

/** What opening the recorder repaired. */
export interface RecorderRepair {
  /** A last line cut short by a kill was removed. */
  tornTail: boolean;
  /** Errored dialogues moved to dialogues.errors.jsonl, to be run again. */
  erroredMoved: number;
  /** Duplicate records of one id dropped (the first is kept). */
  duplicatesDropped: number;
}

/** What dialogues.jsonl holds, from one validating pass. */
export interface DialoguesOnDisk {
  /** Ids of finished (status `done`) dialogues, in file order. */
  finished: Set<string>;
  errored: number;
  duplicates: number;
  tornTail: boolean;
  /** The pass itself (undefined when there is no file), so a repair need not read the file again. */
  scan: JsonlFileScan | undefined;
}

/** One validating pass over dialogues.jsonl; throws on a line that is not JSON (a torn last line excepted) or not a record. */
export function surveyDialogues(dir: string): DialoguesOnDisk {
  const path = join(dir, DIALOGUES_FILE);
  const survey: DialoguesOnDisk = { finished: new Set(), errored: 0, duplicates: 0, tornTail: false, scan: undefined };
  if (!existsSync(path)) return survey;
  let schemaError: RunDirectoryError | undefined;
  const scan = scanJsonlFile(path, (value, line) => {
    if (schemaError !== undefined) return;
    const record = dialogueOf(path, line, value);
    if (record instanceof RunDirectoryError) schemaError = record;
    else if (record.status === "error") survey.errored += 1;
    else if (survey.finished.has(record.id)) survey.duplicates += 1;
    else survey.finished.add(record.id);
  });
  const invalid = invalidLinesError(path, scan.invalid) ?? schemaError;
  if (invalid !== undefined) throw invalid;
  survey.tornTail = scan.tornTail;
  survey.scan = scan;
  return survey;
}

/**
 * Appends dialogue records to dialogues.jsonl, one line per write, so a kill can tear at most the
 * last line. On open it repairs the file: a torn last line is cut off, errored dialogues are moved
 * to dialogues.errors.jsonl (to be run again) and duplicate ids keep their first record. The move
 * is idempotent: a kill between writing the errors file and replacing dialogues.jsonl leaves
 * nothing twice after the next opening. dialogues.jsonl is created on the first append.
 *
 * Memory stays flat however long the run: the file is read in streamed passes and only the ids
 * of finished dialogues are kept.
 */
export class DialogueRecorder {
  /** Ids of finished (status `done`) dialogues, on disk and appended since. */
  readonly finished: Set<string>;
  readonly repaired: RecorderRepair;
  readonly #file: JsonlAppender;

  constructor(readonly dir: string) {
    const path = join(dir, DIALOGUES_FILE);
    const survey = surveyDialogues(dir);
    this.finished = survey.finished;
    this.repaired = { tornTail: false, erroredMoved: 0, duplicatesDropped: survey.duplicates };
    if (survey.scan !== undefined) {
      this.repaired.tornTail = repairJsonlTail(path, survey.scan).tornTail;
      if (survey.errored > 0 || survey.duplicates > 0) {
        this.#setErroredAndDuplicatesAside(path);
        this.repaired.erroredMoved = survey.errored;
      }
    }
    this.#file = new JsonlAppender(path);
  }

  /**
   * Moves errored records to the errors file and drops duplicates (the first of an id is kept):
   * the errors file gains the errored records it does not hold yet, then dialogues.jsonl is
   * replaced by a copy without them. Each line moved or kept is written with the bytes it had
   * (validated, never re-serialised: key order and number formatting stay as they were), so the
   * kept lines are the same lines. A failed write leaves dialogues.jsonl as it was.
   */
  #setErroredAndDuplicatesAside(path: string): void {
    const errorsPath = join(this.dir, ERRORS_FILE);
    const alreadyAside = new Set<string>();
    if (existsSync(errorsPath)) {
      repairJsonlTail(errorsPath);
      // Compared as stable JSON, so a record is recognised whatever its key order on disk.
      scanJsonlFile(errorsPath, (value) => alreadyAside.add(stableStringify(value)));
    }
    const errors = new JsonlAppender(errorsPath);
    const temporary = `${path}.tmp`;
    const out = writingFile(temporary, () => openSync(temporary, "w"));
    const kept = new Set<string>();
    try {
      scanJsonlFile(path, (value, _line, _offset, _bytes, text) => {
        const record = DialogueRecordSchema.parse(value);
        if (record.status === "error") {
          const key = stableStringify(value);
          if (!alreadyAside.has(key)) {
            errors.appendLine(text);
            alreadyAside.add(key);
          }
        } else if (!kept.has(record.id)) {
          kept.add(record.id);
          writingFile(temporary, () => writeWhole(out, `${text}\n`));
        }
      });
      writingFile(temporary, () => fsyncSync(out));
    } catch (error) {
      closeSync(out);
      errors.close();
      rmSync(temporary, { force: true });
      throw error;
    }
    closeSync(out);
    errors.close();
    renameSync(temporary, path);
  }

  append(record: DialogueRecord): void {
    this.#file.append(record);
    if (record.status === "done") this.finished.add(record.id);
  }

  /** Flushes the appended records to the disk (see {@link JsonlAppender.flush}). */
  flush(): Promise<void> {
    return this.#file.flush();
  }

  close(): void {
    this.#file.close();
  }
}

/** Writes a whole dialogues.jsonl at once (imports), atomically. */
export function writeDialogues(dir: string, records: readonly DialogueRecord[]): void {
  writeFileAtomic(join(dir, DIALOGUES_FILE), records.map((record) => `${JSON.stringify(record)}\n`).join(""));
}
