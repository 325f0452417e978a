/**
 * Full-text search over a run's replies (the user's opening, every agent reply and every user
 * reply), case-insensitive, as a substring. It scans dialogues.jsonl, streamed in large chunks in
 * file order, instead of holding an index of the text: memory stays that of the index whatever the
 * run's size, and a 10,000-dialogue run (about 70 MB) is scanned in a fraction of a second because
 * most lines are rejected on their raw text, without parsing (see {@link lineMayMatch}). The
 * matches of the last few queries are kept (the ordinals only), so paging through results and
 * changing other filters does not scan again.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { DIALOGUES_FILE } from "../record/files.js";
import type { RunIndex } from "./run-index.js";

/** Bytes read at once. */
const CHUNK_BYTES = 4 << 20;
/** Queries whose matches are kept per run. */
const CACHED_QUERIES = 8;

/** The texts a search looks in: what the user and the agent said, not ids, think text or hidden appraisals. */
export function replyTexts(record: DialogueRecord): string[] {
  const texts = [record.opening.text];
  for (const turn of record.turns) {
    texts.push(turn.agent.text);
    if (turn.user.text !== undefined) texts.push(turn.user.text);
  }
  return texts;
}

/** A query as search compares it: trimmed and lower-cased. */
export function normaliseQuery(query: string): string {
  return query.trim().toLowerCase();
}

/**
 * Whether a raw JSON line can hold the (lower-cased) query in one of its strings: its lower-cased
 * text contains the query as JSON.stringify escapes it (quotes, backslashes, control characters).
 * A writer that escapes other characters (`\uXXXX` for non-ASCII, `\/`) defeats the test, so such a
 * line is always parsed. The answer is a superset of the matches; the parsed record decides.
 */
export function lineMayMatch(lowerLine: string, escapedQuery: string): boolean {
  return lowerLine.includes(escapedQuery) || lowerLine.includes("\\u") || lowerLine.includes("\\/");
}

/** Whether the record's replies contain the normalised query. */
export function recordMatches(record: DialogueRecord, query: string): boolean {
  return replyTexts(record).some((text) => text.toLowerCase().includes(query));
}

/** The ordinals of a run's dialogues whose replies contain the query, in file order. */
export function scanReplies(run: RunIndex, query: string): Set<number> {
  const needle = normaliseQuery(query);
  const matches = new Set<number>();
  if (needle === "") return matches;
  const escaped = JSON.stringify(needle).slice(1, -1);
  const path = join(run.dir, DIALOGUES_FILE);
  const fd = openSync(path, "r");
  let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let windowStart = 0;
  let windowEnd = 0;
  try {
    for (const entry of run.dialogues) {
      const { offset, bytes } = entry.span;
      if (offset < windowStart || offset + bytes > windowEnd) {
        // The index is in file order, so one chunk serves many lines in a row.
        if (buffer.length < bytes) buffer = Buffer.allocUnsafe(bytes);
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        windowStart = offset;
        windowEnd = offset + read;
        if (offset + bytes > windowEnd) continue;
      }
      const text = buffer.toString("utf8", offset - windowStart, offset - windowStart + bytes);
      if (!lineMayMatch(text.toLowerCase(), escaped)) continue;
      try {
        if (recordMatches(JSON.parse(text) as DialogueRecord, needle)) matches.add(entry.ordinal);
      } catch {
        // The index validated every line; one that no longer parses or has the shape (the file
        // changed under the viewer) does not match, and reading it back says what happened.
      }
    }
  } finally {
    closeSync(fd);
  }
  return matches;
}

/** Searches of one run, with the matches of the last few queries kept. */
export class ReplySearch {
  readonly #recent = new Map<string, Set<number>>();

  constructor(readonly run: RunIndex) {}

  /** Ordinals of the dialogues whose replies contain the query. */
  matches(query: string): ReadonlySet<number> {
    const key = normaliseQuery(query);
    const known = this.#recent.get(key);
    if (known !== undefined) {
      // Most recently used last.
      this.#recent.delete(key);
      this.#recent.set(key, known);
      return known;
    }
    const found = scanReplies(this.run, key);
    this.#recent.set(key, found);
    if (this.#recent.size > CACHED_QUERIES) this.#recent.delete(this.#recent.keys().next().value as string);
    return found;
  }
}
