/**
 * SAGE result files as AEB dialogue records (the format: docs/sage-interop.md).
 *
 * A result file is JSONL, one dialogue a line: `id`, `emo_point` (final emotion, a string or a
 * number), `emo_state`, `player`, `scene`, `character`/`main_cha`, `topic`, `task`, and `history`
 * [{`role`, `content`, `emotion-point`?, `thinking`?, `planning`?}]. Lines are split on "\n"
 * only (the files hold raw U+2028 inside strings). docs/sage-interop.md has the field mapping.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { z } from "zod";
import type { DialogueRecord, TurnRecord } from "../core/dialogue.js";
import { AebError, formatIssues } from "../core/errors.js";
import { getPreset, type Preset } from "../core/preset.js";
import { profileScenarioId } from "../scenarios/sage-profiles.js";
import { parseJsonl } from "../core/jsonl.js";
import { dialogueId } from "../core/dialogue.js";
import { endReasonOf } from "../episode/end-rules.js";

/** A SAGE result file that cannot be imported as asked (unreadable, or invalid lines under `--strict`). */
export class SageImportError extends AebError {
  override readonly name = "SageImportError";
}

/** An emotion as SAGE writes it: an integer 0-100, as a number or a numeric string. */
const EmotionSchema = z
  .union(
    [
      z.number(),
      z
        .string()
        .trim()
        .regex(/^[+-]?\d+(\.\d+)?$/u, "not a number")
        .transform(Number),
    ],
    {
      error: (issue) => (issue.input === undefined ? "missing" : "must be a number or a numeric string"),
    },
  )
  .pipe(z.number().int("must be an integer").min(0, "must be in [0, 100]").max(100, "must be in [0, 100]"));

const HistoryEntrySchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  /** The simulator's emotion after this user message (user turns only). */
  "emotion-point": EmotionSchema.optional(),
  /** The simulator's reasoning about its reply. */
  thinking: z.string().optional(),
  /** The simulator's appraisal of the assistant reply (activity, TargetCompletion, content, analyse, change). */
  planning: z.unknown().optional(),
});

/** One line of a SAGE result file; fields not listed are allowed (and dropped on import). */
export const SageResultLineSchema = z
  .looseObject({
    id: z
      .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? "missing" : "must be a string or a number") })
      .transform(String)
      .pipe(z.string().trim().min(1, "is empty")),
    /** Final emotion: the dialogue's Sentient score. */
    emo_point: EmotionSchema,
    emo_state: z.string().optional(),
    topic: z.string().optional(),
    task: z.string().optional(),
    character: z.string().optional(),
    main_cha: z.string().optional(),
    history: z.array(HistoryEntrySchema).min(1, "is empty"),
  })
  .superRefine((line, context) => {
    line.history.forEach((entry, index) => {
      const expected = index % 2 === 0 ? "user" : "assistant";
      if (entry.role !== expected) {
        context.addIssue({
          code: "custom",
          path: ["history", index, "role"],
          message: `expected "${expected}" (turns alternate, starting with the user), got "${entry.role}"`,
        });
      }
    });
  });
export type SageResultLine = z.infer<typeof SageResultLineSchema>;

export interface SkippedLine {
  file: string;
  /** 1-based line number. */
  line: number;
  message: string;
}

export interface SageResultFile {
  file: string;
  /** The condition the file becomes: its name without `_result.jsonl` (or `.jsonl`). */
  condition: string;
  records: DialogueRecord[];
  /** Lines that did not parse or validate, kept out of `records`. */
  skipped: SkippedLine[];
}

/** `gpt-4.1_result.jsonl` -> `gpt-4.1`. */
export function conditionNameOf(file: string): string {
  const name = basename(file);
  for (const suffix of ["_result.jsonl", ".jsonl"])
    if (name.endsWith(suffix) && name.length > suffix.length) return name.slice(0, -suffix.length);
  return name;
}

/** One valid line of a SAGE result file, with its 1-based line number. */
export interface SageResultEntry {
  line: number;
  value: SageResultLine;
}

/**
 * Reads and validates the lines of a SAGE result file: the valid ones in file order, and the
 * others listed in `skipped` with their number (the caller decides whether that is fatal).
 */
export function readSageResultLines(file: string): { entries: SageResultEntry[]; skipped: SkippedLine[] } {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new SageImportError(`cannot read SAGE result file ${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonl(content);
  const skipped: SkippedLine[] = parsed.invalid.map(({ line, message }) => ({ file, line, message: `not valid JSON (${message})` }));
  if (parsed.tornTail) skipped.push({ file, line: content.split("\n").length, message: "not valid JSON (the last line is cut short)" });
  const entries: SageResultEntry[] = [];
  const seen = new Map<string, number>();
  for (const { line, value } of parsed.lines) {
    const result = SageResultLineSchema.safeParse(value);
    if (!result.success) {
      skipped.push({ file, line, message: `not a SAGE result line:\n${formatIssues(result.error.issues)}` });
      continue;
    }
    const previous = seen.get(result.data.id);
    if (previous !== undefined) {
      skipped.push({ file, line, message: `duplicate dialogue id "${result.data.id}" (first on line ${previous})` });
      continue;
    }
    seen.set(result.data.id, line);
    entries.push({ line, value: result.data });
  }
  skipped.sort((a, b) => a.line - b.line);
  return { entries, skipped };
}

/**
 * Reads one SAGE result file. Every valid line becomes a dialogue record; invalid lines are listed
 * in `skipped` with their number (the caller decides whether that is fatal).
 */
export function readSageResultFile(file: string, options: { condition?: string; preset?: Preset } = {}): SageResultFile {
  const { entries, skipped } = readSageResultLines(file);
  const condition = options.condition ?? conditionNameOf(file);
  const preset = options.preset ?? getPreset("sage");
  const records = entries.map(({ line, value }) => sageResultToDialogue(value, { condition, preset, file, line }));
  return { file, condition, records, skipped };
}

/**
 * One SAGE dialogue as a record of `dialogues.jsonl`: the first user message is the opening (at the
 * preset's start emotion, 40 for SAGE); each assistant reply and the user message after it make a
 * turn, whose emotion is the user message's `emotion-point` (the previous emotion where it is
 * missing; the final `emo_point` for the last); the simulator's `planning` and `thinking` are the
 * turn's appraisal. An assistant reply the simulator never answered (SAGE's 10th, at its turn
 * limit) is a turn that was not appraised (`user.appraised: false`), as the `sage` preset records
 * it. The end reason follows the preset's rules on the final emotion and the last user message.
 */
export function sageResultToDialogue(
  line: SageResultLine,
  where: { condition: string; preset: Preset; file: string; line: number },
): DialogueRecord {
  const { preset } = where;
  const [opening, ...rest] = line.history;
  const finalEmotion = line.emo_point;
  const turns: TurnRecord[] = [];
  let emotion = preset.start;
  let lastUserText = "";
  for (let index = 0; index < rest.length; index += 2) {
    const agent = rest[index];
    const user = rest[index + 1];
    if (agent === undefined) break;
    const agentRecord = { text: agent.content, chars: [...agent.content].length };
    if (user === undefined) {
      turns.push({ index: turns.length, agent: agentRecord, user: { appraised: false, emotion, adjustments: [], flags: [] } });
      break;
    }
    const isLast = rest[index + 3] === undefined;
    const reported = user["emotion-point"];
    const next = reported ?? (isLast ? finalEmotion : emotion);
    const delta = next - emotion;
    const appraisal: Record<string, unknown> = {};
    if (user.planning !== undefined) appraisal.planning = user.planning;
    if (user.thinking !== undefined) appraisal.thinking = user.thinking;
    if (reported === undefined)
      appraisal.emotionPoint = isLast ? "missing: the final emo_point" : "missing: the previous emotion carried over";
    turns.push({
      index: turns.length,
      agent: agentRecord,
      user: {
        text: user.content,
        emotion: next,
        delta,
        simulatorDelta: delta,
        adjustments: [],
        flags: [],
        ...(Object.keys(appraisal).length > 0 ? { appraisal } : {}),
      },
    });
    emotion = next;
    lastUserText = user.content;
  }
  const endReason =
    endReasonOf({ emotion: finalEmotion, turnsPlayed: turns.length, userLeft: false, userText: lastUserText, preset }) ?? "max_turns";
  const scenarioId = profileScenarioId(line.id, "sage");
  const character = line.character ?? line.main_cha;
  return {
    id: dialogueId(where.condition, scenarioId, 0),
    condition: where.condition,
    scenarioId,
    type: "cooperative",
    repeat: 0,
    seed: 0,
    status: "done",
    endReason,
    preset: preset.name,
    manipulationTurn: 0,
    opening: { text: opening?.content ?? "", emotion: preset.start },
    turns,
    final: { emotion: finalEmotion, fs: finalEmotion / 100 },
    sage: {
      file: basename(where.file),
      line: where.line,
      id: line.id,
      ...(line.emo_state !== undefined ? { emoState: line.emo_state } : {}),
      ...(line.topic !== undefined ? { topic: line.topic } : {}),
      ...(line.task !== undefined ? { task: line.task } : {}),
      ...(character !== undefined ? { character } : {}),
    },
  };
}
