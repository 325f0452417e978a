/**
 * What the viewer keeps in memory of a run directory: one small entry per dialogue (where its line
 * lies in dialogues.jsonl, the compact row the report is computed from, and the few numbers the
 * filters need), built in one streamed pass. No text is kept: a dialogue's turns are read back
 * from the file by offset when a page asks for them (record-store.ts).
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { scanJsonlFile } from "../core/jsonl.js";
import { StringPool } from "../core/string-pool.js";
import { dialogueRow, type DialogueRow } from "../metrics/dialogue-row.js";
import { scanDialogues } from "../record/dialogue-reader.js";
import { DialogueRowStore } from "../record/dialogue-row-store.js";
import { DIALOGUES_FILE, JUDGEMENTS_FILE } from "../record/files.js";
import { readConditionOrder } from "../record/load-run.js";

/** Where one line lies in a file: its first byte and its length (newline excluded). */
export interface LineSpan {
  offset: number;
  bytes: number;
}

/** One dialogue of a run as the viewer indexes it. */
export interface IndexedDialogue {
  /** The run's position in the viewer's list of directories. */
  run: number;
  /** Position among this run's dialogues, in file order. */
  ordinal: number;
  /** The numbers of the dialogue (no text), as the reports compute them. */
  row: DialogueRow;
  /** Its line in dialogues.jsonl: number (1-based) and bytes. */
  line: number;
  span: LineSpan;
  /** The lowest emotion the user reached (opening included). */
  lowestEmotion: number;
  /** Distinct flags raised on any turn, sorted. */
  flags: readonly string[];
  /** Largest |score A - score B| over pairs of ECS judges that scored the dialogue (0-1); null with fewer than two. */
  judgeGap: number | null;
  /** Largest |predicted - actual| emotion over every ECS judge's judged (not imputed) turns (0-100); null when none. */
  predictionGap: number | null;
}

/** The distinct values of a run's filterable fields, in a stable order. */
export interface RunFacets {
  conditions: string[];
  types: string[];
  scenarios: string[];
  endReasons: string[];
  flags: string[];
  presets: string[];
  /** ECS judges found on the dialogues, in the order first met. */
  ecsJudges: string[];
}

/** A run directory, indexed. */
export interface RunIndex {
  /** Its position in the viewer's list. */
  run: number;
  /** The directory as given. */
  dir: string;
  /** A short name to show: the directory's last part, made unique among the runs. */
  label: string;
  dialogues: IndexedDialogue[];
  /** The first dialogue of each id (a directory the recorder wrote has no duplicate). */
  byId: ReadonlyMap<string, IndexedDialogue>;
  /** Lines of judgements.jsonl by dialogue id, to lay over a record read back. */
  judgementSpans: ReadonlyMap<string, readonly LineSpan[]>;
  facets: RunFacets;
  tornTail: boolean;
  /** Problems met while indexing that the viewer shows (a torn last line, duplicate ids). */
  readingNotes: string[];
}

/** Largest |a - b| over every pair of values; null with fewer than two. */
function largestGap(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return high - low;
}

/** The judge-disagreement numbers of a record (its judgements merged). */
export function disagreementOf(record: DialogueRecord): { judgeGap: number | null; predictionGap: number | null } {
  const scores: number[] = [];
  let predictionGap: number | null = null;
  for (const judgement of Object.values(record.ecs ?? {})) {
    if (typeof judgement.score === "number" && Number.isFinite(judgement.score)) scores.push(judgement.score);
    for (const estimate of judgement.estimates ?? []) {
      if (estimate.imputed === true) continue;
      const gap = Math.abs(estimate.predicted - estimate.actual);
      predictionGap = predictionGap === null ? gap : Math.max(predictionGap, gap);
    }
  }
  return { judgeGap: largestGap(scores), predictionGap };
}

/** In order of first appearance, then, where asked, sorted. */
function ordered(values: Iterable<string>, sort: boolean): string[] {
  const list = [...new Set(values)];
  return sort ? list.sort() : list;
}

/** Lines of judgements.jsonl by the dialogue id they name (the lines are validated when read back). */
function indexJudgements(dir: string): Map<string, LineSpan[]> {
  const spans = new Map<string, LineSpan[]>();
  const path = join(dir, JUDGEMENTS_FILE);
  if (!existsSync(path)) return spans;
  scanJsonlFile(path, (value, _line, offset, bytes) => {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== "string") return;
    const list = spans.get(id) ?? [];
    list.push({ offset, bytes });
    spans.set(id, list);
  });
  return spans;
}

/**
 * Indexes a run directory in one streamed pass over dialogues.jsonl (with judgements.jsonl laid
 * over each record, as every reader does). A missing directory or file, or a bad line, is an
 * error naming it; a torn last line is left out and noted.
 */
export function indexRun(dir: string, run: number, label: string = basename(resolve(dir))): RunIndex {
  if (!existsSync(dir)) throw new RunDirectoryError(`run directory ${dir} does not exist`);
  if (!statSync(dir).isDirectory())
    throw new RunDirectoryError(`${dir} is not a directory (expected a run directory made by aeb run --out)`);
  if (!existsSync(join(dir, DIALOGUES_FILE)))
    throw new RunDirectoryError(
      `${join(dir, DIALOGUES_FILE)} is missing: ${dir} is not a run directory, or its run has not finished a dialogue yet`,
    );
  const pool = new StringPool();
  const store = new DialogueRowStore();
  const dialogues: IndexedDialogue[] = [];
  const byId = new Map<string, IndexedDialogue>();
  const ecsJudges: string[] = [];
  let duplicates = 0;
  const { tornTail } = scanDialogues(dir, (record, line, offset, bytes) => {
    // Built once as a plain row for what the index derives from it, then held column by column (record/dialogue-row-store.ts).
    const plain = dialogueRow(record);
    for (const judge of Object.keys(plain.ecs)) if (!ecsJudges.includes(judge)) ecsJudges.push(judge);
    // Named fields, not a spread: an entry is kept for every dialogue, and a spread makes it in a slower, larger form.
    const { judgeGap, predictionGap } = disagreementOf(record);
    const entry: IndexedDialogue = {
      run,
      ordinal: dialogues.length,
      row: store.add(plain),
      line,
      span: { offset, bytes },
      lowestEmotion: plain.emotions.reduce((lowest, emotion) => Math.min(lowest, emotion), plain.finalEmotion),
      flags: Object.keys(plain.metrics.flags)
        .sort()
        .map((flag) => pool.get(flag)),
      judgeGap,
      predictionGap,
    };
    dialogues.push(entry);
    if (byId.has(record.id)) duplicates += 1;
    else byId.set(record.id, entry);
  });
  const readingNotes: string[] = [];
  if (tornTail) readingNotes.push(`${DIALOGUES_FILE} ends with a torn line (an interrupted write); it was left out.`);
  if (duplicates > 0)
    readingNotes.push(
      `${DIALOGUES_FILE} holds ${duplicates} dialogue(s) whose id occurs earlier in the file; the viewer opens the first of each id.`,
    );
  if (dialogues.length === 0) throw new RunDirectoryError(`${join(dir, DIALOGUES_FILE)} holds no dialogue; nothing to view`);
  const rows = dialogues.map((entry) => entry.row);
  return {
    run,
    dir,
    label,
    dialogues,
    byId,
    judgementSpans: indexJudgements(dir),
    facets: {
      // The run's own order (run.json, else summary.json), then any only the dialogues name.
      conditions: ordered(
        [...readConditionOrder(dir).filter((name) => rows.some((row) => row.condition === name)), ...rows.map((row) => row.condition)],
        false,
      ),
      types: ordered(
        rows.map((row) => row.type),
        true,
      ),
      scenarios: ordered(
        rows.map((row) => row.scenarioId),
        true,
      ),
      endReasons: ordered(
        rows.map((row) => row.endReason),
        true,
      ),
      flags: ordered(
        dialogues.flatMap((entry) => entry.flags),
        true,
      ),
      presets: ordered(
        rows.map((row) => row.preset),
        true,
      ),
      ecsJudges,
    },
    tornTail,
    readingNotes,
  };
}

/** Labels for the directories: each one's last path part, with a number added where two share it. */
export function runLabels(dirs: readonly string[]): string[] {
  const names = dirs.map((dir) => basename(resolve(dir)) || dir);
  const seen = new Map<string, number>();
  return names.map((name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}
