import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import { EcsJudgementsSchema, HidJudgementsSchema, type EcsJudgement, type HidJudgement } from "../core/judgement.js";
import { scanJsonlFile } from "../core/jsonl.js";
import { JUDGEMENTS_FILE } from "./files.js";
import { invalidLinesError, JsonlAppender } from "./jsonl-file.js";

/**
 * One line of judgements.jsonl: what judges said about one dialogue after it was recorded (`aeb
 * judge`, or a judge call retried when a run resumed). Readers lay it over the dialogue's record,
 * judge by judge, later lines winning.
 */
export const JudgementLineSchema = z.strictObject({
  /** The dialogue's id (`condition/scenario/repeat`). */
  id: z.string(),
  ecs: EcsJudgementsSchema.optional(),
  hid: HidJudgementsSchema.optional(),
});
export type JudgementLine = z.infer<typeof JudgementLineSchema>;

/** The judgements of one dialogue, folded over every line that names it. */
export interface FoldedJudgements {
  ecs: Record<string, EcsJudgement>;
  hid: Record<string, HidJudgement>;
}

/**
 * Reads judgements.jsonl folded by dialogue id (later lines win, judge by judge). A torn last line
 * (a kill during an append) is left out; any other bad line is an error naming file and line.
 */
export function readJudgements(dir: string): Map<string, FoldedJudgements> {
  const path = join(dir, JUDGEMENTS_FILE);
  const byId = new Map<string, FoldedJudgements>();
  if (!existsSync(path)) return byId;
  let schemaError: RunDirectoryError | undefined;
  const scan = scanJsonlFile(path, (value, line) => {
    if (schemaError !== undefined) return;
    const parsed = JudgementLineSchema.safeParse(value);
    if (!parsed.success) {
      schemaError = new RunDirectoryError(`${path} line ${line} is not a judgement line:\n${formatIssues(parsed.error.issues)}`);
      return;
    }
    byId.set(parsed.data.id, foldJudgementLine(byId.get(parsed.data.id), parsed.data));
  });
  const invalid = invalidLinesError(path, scan.invalid) ?? schemaError;
  if (invalid !== undefined) throw invalid;
  return byId;
}

/** Lays one judgement line over what earlier lines said about its dialogue (judge by judge, the later line winning). */
export function foldJudgementLine(earlier: FoldedJudgements | undefined, line: JudgementLine): FoldedJudgements {
  const entry = earlier ?? { ecs: {}, hid: {} };
  Object.assign(entry.ecs, line.ecs ?? {});
  Object.assign(entry.hid, line.hid ?? {});
  return entry;
}

/** The record with its later judgements laid over it, judge by judge. */
export function withJudgements(record: DialogueRecord, judgements: ReadonlyMap<string, FoldedJudgements>): DialogueRecord {
  const extra = judgements.get(record.id);
  if (extra === undefined) return record;
  const ecs = Object.keys(extra.ecs).length > 0 ? { ecs: { ...(record.ecs ?? {}), ...extra.ecs } } : {};
  const hid = Object.keys(extra.hid).length > 0 ? { hid: { ...(record.hid ?? {}), ...extra.hid } } : {};
  return { ...record, ...ecs, ...hid };
}

/** Appends judgement lines to judgements.jsonl, repairing a torn last line first. */
export class JudgementWriter {
  readonly #file: JsonlAppender;

  constructor(dir: string) {
    this.#file = new JsonlAppender(join(dir, JUDGEMENTS_FILE));
  }

  append(line: JudgementLine): void {
    this.#file.append(JudgementLineSchema.parse(line));
  }

  close(): void {
    this.#file.close();
  }
}
