import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { parseJsonl } from "../core/jsonl.js";
import { readDialogues } from "./run-directory.js";

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

/** Records with later judgements laid over them, judge by judge (later lines win). */
export function mergeJudgements(records: readonly DialogueRecord[], judgements: readonly JudgementLine[]): DialogueRecord[] {
  if (judgements.length === 0) return [...records];
  const byId = new Map<string, { ecs: Record<string, unknown>; hid: Record<string, unknown> }>();
  for (const line of judgements) {
    const entry = byId.get(line.id) ?? { ecs: {}, hid: {} };
    Object.assign(entry.ecs, line.ecs ?? {});
    Object.assign(entry.hid, line.hid ?? {});
    byId.set(line.id, entry);
  }
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

/** Every dialogue of a run directory with its later judgements merged in (for reports and re-analysis). */
export function readRunRecords(dir: string): { records: DialogueRecord[]; tornTail: boolean } {
  const { records, tornTail } = readDialogues(dir);
  return { records: mergeJudgements(records, readJudgements(dir)), tornTail };
}
