import type { DialogueRecord, HidVerdict } from "../core/dialogue.js";

const HID_VALUE: Record<HidVerdict, number> = { yes: 1, partial: 0.5, no: 0 };

/** Numbers of one dialogue (docs/output-format.md) that need no judge model. */
export interface DialogueMetrics {
  fs: number;
  collapsed: boolean;
  /** Mean simulator HID verdict over turns from the manipulation turn on; null when no such turn has one. */
  hid: number | null;
  turns: number;
  meanReplyChars: number;
  meanReplyWords: number;
  /** Mean visible-reply tokens per turn; present only when every turn was counted (a tokenizer was set). */
  meanReplyTokens?: number;
  /** Mean think-text characters per turn, null when the condition does not think. */
  meanThinkChars: number | null;
  flags: Record<string, number>;
}

export function wordCount(text: string): number {
  // Han characters count one word each; other scripts by whitespace-separated words.
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const words = text
    .replace(/\p{Script=Han}/gu, " ")
    .split(/\s+/u)
    .filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return han + words;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** HID as the paper: yes / partial / no = 1 / 0.5 / 0, averaged over turns from the manipulation turn on. */
export function simulatorHid(record: DialogueRecord): number | null {
  const verdicts = record.turns
    .filter((turn) => turn.index >= record.manipulationTurn && turn.user.hid !== undefined)
    .map((turn) => HID_VALUE[turn.user.hid as HidVerdict]);
  return verdicts.length === 0 ? null : mean(verdicts);
}

export function dialogueMetrics(record: DialogueRecord): DialogueMetrics {
  const flags: Record<string, number> = {};
  for (const turn of record.turns) for (const flag of turn.user.flags) flags[flag] = (flags[flag] ?? 0) + 1;
  const thinks = record.turns.map((turn) => turn.agent.think).filter((think): think is string => think !== undefined);
  const tokens = record.turns.map((turn) => turn.agent.tokens).filter((count): count is number => count !== undefined);
  const counted = record.turns.length > 0 && tokens.length === record.turns.length;
  return {
    fs: record.final.fs,
    collapsed: record.endReason === "collapse",
    hid: simulatorHid(record),
    turns: record.turns.length,
    meanReplyChars: record.turns.length === 0 ? 0 : mean(record.turns.map((turn) => turn.agent.chars)),
    meanReplyWords: record.turns.length === 0 ? 0 : mean(record.turns.map((turn) => wordCount(turn.agent.text))),
    ...(counted ? { meanReplyTokens: mean(tokens) } : {}),
    meanThinkChars: thinks.length === 0 ? null : mean(thinks.map((think) => [...think].length)),
    flags,
  };
}
