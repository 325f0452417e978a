/**
 * Reads dialogues back from disk by the byte offsets of the index: one `read` per record, validated
 * as every reader of the record validates it, with its later judgements laid over it. The file is
 * reopened for each read (a page asks for a handful), so nothing stays open between requests.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { dialogueOf } from "../record/dialogue-reader.js";
import { DIALOGUES_FILE, JUDGEMENTS_FILE } from "../record/files.js";
import { foldJudgementLine, JudgementLineSchema, withJudgements, type FoldedJudgements } from "../record/judgements.js";
import type { IndexedDialogue, LineSpan, RunIndex } from "./run-index.js";

/** The text of the lines at these spans of a file, in order, read through one open descriptor. */
export function readLines(path: string, spans: readonly LineSpan[]): string[] {
  if (spans.length === 0) return [];
  const fd = openSync(path, "r");
  try {
    return spans.map((span) => {
      const buffer = Buffer.allocUnsafe(span.bytes);
      let read = 0;
      while (read < span.bytes) {
        const got = readSync(fd, buffer, read, span.bytes - read, span.offset + read);
        if (got === 0) throw new RunDirectoryError(`${path} changed while the viewer was open (a line ends early); restart aeb view`);
        read += got;
      }
      return buffer.toString("utf8");
    });
  } finally {
    closeSync(fd);
  }
}

function parseLine(path: string, text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RunDirectoryError(`${path} changed while the viewer was open (${what} is no longer JSON); restart aeb view`);
  }
}

/** The judgements of one dialogue from judgements.jsonl, folded in file order. */
function judgementsOf(run: RunIndex, id: string): Map<string, FoldedJudgements> {
  const folded = new Map<string, FoldedJudgements>();
  const spans = run.judgementSpans.get(id);
  if (spans === undefined) return folded;
  const path = join(run.dir, JUDGEMENTS_FILE);
  let entry: FoldedJudgements | undefined;
  for (const text of readLines(path, spans)) {
    const line = JudgementLineSchema.safeParse(parseLine(path, text, "a judgement line"));
    if (!line.success)
      throw new RunDirectoryError(`${path}: a judgement line of ${id} is not a judgement line:\n${formatIssues(line.error.issues)}`);
    entry = foldJudgementLine(entry, line.data);
  }
  if (entry !== undefined) folded.set(id, entry);
  return folded;
}

/** Full records of indexed dialogues of one run, in the order asked, judgements merged. */
export function readRecords(run: RunIndex, entries: readonly IndexedDialogue[]): DialogueRecord[] {
  const path = join(run.dir, DIALOGUES_FILE);
  const texts = readLines(
    path,
    entries.map((entry) => entry.span),
  );
  return texts.map((text, index) => {
    const entry = entries[index] as IndexedDialogue;
    const record = dialogueOf(path, entry.line, parseLine(path, text, `the line of ${entry.row.id}`));
    if (record instanceof RunDirectoryError) throw record;
    if (record.id !== entry.row.id)
      throw new RunDirectoryError(
        `${path} changed while the viewer was open (expected ${entry.row.id} at byte ${entry.span.offset}); restart aeb view`,
      );
    return withJudgements(record, judgementsOf(run, record.id));
  });
}
