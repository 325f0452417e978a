import { createHash } from "node:crypto";
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync, accessSync, constants } from "node:fs";
import { join } from "node:path";
import { DialogueRecordSchema, type DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { parseJsonl } from "../core/jsonl.js";

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

/** Reads and validates every dialogue of a run directory; errors name the file and line. */
export function readDialogues(dir: string, options: { allowTornTail?: boolean } = {}): { records: DialogueRecord[]; tornTail: boolean } {
  const path = join(dir, DIALOGUES_FILE);
  if (!existsSync(path)) return { records: [], tornTail: false };
  const parsed = parseJsonl(readFileSync(path, "utf8"));
  const firstInvalid = parsed.invalid[0];
  if (firstInvalid) {
    throw new RunDirectoryError(`${path} line ${firstInvalid.line} is not valid JSON (${firstInvalid.message}); ${parsed.invalid.length} bad line(s) in all`);
  }
  if (parsed.tornTail && options.allowTornTail === false) throw new RunDirectoryError(`${path} ends with a torn line`);
  const records = parsed.lines.map(({ line, value }) => {
    const record = DialogueRecordSchema.safeParse(value);
    if (!record.success) throw new RunDirectoryError(`${path} line ${line} is not a dialogue record:\n${formatIssues(record.error.issues)}`);
    return record.data;
  });
  return { records, tornTail: parsed.tornTail };
}

/**
 * What a long run keeps in memory of a finished dialogue: the record without the simulator's
 * appraisal details and the ECS judges' per-turn estimates, which no summary or report reads and
 * which make up much of a record. The file keeps everything.
 */
export function inMemoryView(record: DialogueRecord): DialogueRecord {
  const turns = record.turns.map(({ user: { appraisal: _appraisal, ...user }, ...turn }) => ({ ...turn, user }));
  const ecs = record.ecs === undefined ? undefined : Object.fromEntries(Object.entries(record.ecs).map(([name, { estimates: _estimates, ...rest }]) => [name, rest]));
  return { ...record, turns, ...(ecs !== undefined ? { ecs: ecs as DialogueRecord["ecs"] } : {}) };
}

/**
 * Appends dialogue records, one line per write, so that a kill can tear at most the last line.
 * On open it repairs the file: a torn last line is cut off, errored dialogues are moved to
 * `dialogues.errors.jsonl` (to be retried) and duplicate ids keep their first record.
 */
export class DialogueRecorder {
  private readonly fd: number;
  readonly finished: Map<string, DialogueRecord>;
  readonly repaired: { tornTail: boolean; erroredMoved: number; duplicatesDropped: number };

  constructor(readonly dir: string) {
    const path = join(dir, DIALOGUES_FILE);
    this.finished = new Map();
    this.repaired = { tornTail: false, erroredMoved: 0, duplicatesDropped: 0 };
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      const parsed = parseJsonl(text);
      if (parsed.tornTail) {
        truncateSync(path, parsed.validPrefixBytes);
        this.repaired.tornTail = true;
      } else if (text.length > 0 && !text.endsWith("\n")) {
        appendFileSync(path, "\n");
      }
      const { records } = readDialogues(dir);
      const keep: DialogueRecord[] = [];
      const errored: DialogueRecord[] = [];
      for (const record of records) {
        if (record.status === "error") errored.push(record);
        else if (this.finished.has(record.id)) this.repaired.duplicatesDropped += 1;
        else {
          this.finished.set(record.id, inMemoryView(record));
          keep.push(record);
        }
      }
      if (errored.length > 0 || this.repaired.duplicatesDropped > 0) {
        for (const record of errored) appendFileSync(join(dir, ERRORS_FILE), `${JSON.stringify(record)}\n`);
        const temporary = `${path}.tmp`;
        writeFileSync(temporary, keep.map((record) => `${JSON.stringify(record)}\n`).join(""));
        renameSync(temporary, path);
        this.repaired.erroredMoved = errored.length;
      }
    }
    this.fd = openSync(path, "a");
  }

  append(record: DialogueRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    if (record.status === "done") this.finished.set(record.id, inMemoryView(record));
  }

  close(): void {
    closeSync(this.fd);
  }
}
