import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { parseJsonl } from "../core/jsonl.js";
import { ecsRowOf, hidRowOf, judgeRows, type DialogueRow } from "../metrics/dialogue-row.js";
import { readDialogueRows, readDialogues, readScoredDialoguesById } from "./run-directory.js";

/** Judgements made after the run (`aeb judge`), one line per judged dialogue, beside dialogues.jsonl. */
export const JUDGEMENTS_FILE = "judgements.jsonl";

const JudgementLineSchema = z.looseObject({
  id: z.string(),
  ecs: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  hid: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type JudgementLine = z.infer<typeof JudgementLineSchema>;

export function readJudgements(dir: string): JudgementLine[] {
  const path = join(dir, JUDGEMENTS_FILE);
  if (!existsSync(path)) return [];
  const parsed = parseJsonl(readFileSync(path, "utf8"));
  const first = parsed.invalid[0];
  if (first) throw new RunDirectoryError(`${path} line ${first.line} is not valid JSON (${first.message})`);
  return parsed.lines.map(({ line, value }) => {
    const result = JudgementLineSchema.safeParse(value);
    if (!result.success) throw new RunDirectoryError(`${path} line ${line} is not a judgement line`);
    return result.data;
  });
}

export function appendJudgement(dir: string, line: JudgementLine): void {
  appendFileSync(join(dir, JUDGEMENTS_FILE), `${JSON.stringify(line)}\n`);
}

/** Judgement lines folded by dialogue id, judge by judge (later lines win). */
function judgementsById(judgements: readonly JudgementLine[]): Map<string, { ecs: Record<string, unknown>; hid: Record<string, unknown> }> {
  const byId = new Map<string, { ecs: Record<string, unknown>; hid: Record<string, unknown> }>();
  for (const line of judgements) {
    const entry = byId.get(line.id) ?? { ecs: {}, hid: {} };
    Object.assign(entry.ecs, line.ecs ?? {});
    Object.assign(entry.hid, line.hid ?? {});
    byId.set(line.id, entry);
  }
  return byId;
}

/** Records with later judgements laid over them, judge by judge (later lines win). */
export function mergeJudgements(records: readonly DialogueRecord[], judgements: readonly JudgementLine[]): DialogueRecord[] {
  if (judgements.length === 0) return [...records];
  const byId = judgementsById(judgements);
  return records.map((record) => {
    const extra = byId.get(record.id);
    if (extra === undefined) return record;
    return {
      ...record,
      ...(Object.keys(extra.ecs).length > 0 ? { ecs: { ...(record.ecs ?? {}), ...extra.ecs } as DialogueRecord["ecs"] } : {}),
      ...(Object.keys(extra.hid).length > 0 ? { hid: { ...(record.hid ?? {}), ...extra.hid } as DialogueRecord["hid"] } : {}),
    };
  });
}

/** {@link mergeJudgements} for compact rows: the same judges, in the same order, as the merged records would have. */
export function mergeJudgementRows(rows: readonly DialogueRow[], judgements: readonly JudgementLine[]): DialogueRow[] {
  if (judgements.length === 0) return [...rows];
  const byId = judgementsById(judgements);
  return rows.map((row) => {
    const extra = byId.get(row.id);
    if (extra === undefined) return row;
    return {
      ...row,
      ...(Object.keys(extra.ecs).length > 0 ? { ecs: { ...row.ecs, ...judgeRows(extra.ecs, ecsRowOf) } } : {}),
      ...(Object.keys(extra.hid).length > 0 ? { hid: { ...row.hid, ...judgeRows(extra.hid, hidRowOf) } } : {}),
    };
  });
}

/** Every dialogue of a run directory with its later judgements merged in (for reports and re-analysis). */
export function readRunRecords(dir: string): { records: DialogueRecord[]; tornTail: boolean } {
  const { records, tornTail } = readDialogues(dir);
  return { records: mergeJudgements(records, readJudgements(dir)), tornTail };
}

/** Every dialogue of a run directory as a compact row, later judgements merged in, read in one streamed pass. */
export function readRunRows(dir: string): { rows: DialogueRow[]; tornTail: boolean } {
  const { rows, tornTail } = readDialogueRows(dir);
  return { rows: mergeJudgementRows(rows, readJudgements(dir)), tornTail };
}

/** The full records of these scored dialogues, later judgements merged in, read in one streamed pass that keeps only them. */
export function readRunTranscripts(dir: string, ids: ReadonlySet<string>): Map<string, DialogueRecord> {
  const found = readScoredDialoguesById(dir, ids);
  const merged = mergeJudgements([...found.values()], readJudgements(dir));
  return new Map(merged.map((record) => [record.id, record]));
}
