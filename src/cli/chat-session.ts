/**
 * `aeb chat`: a person plays the agent in the terminal against a simulated user, through the same
 * episode machine as every run, and watches (with `reveal`) the emotion move and why. A finished
 * dialogue is a dialogue record like any other; the command saves it as condition `human`.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Agent, AgentInput, AgentReply } from "../agents/agent.js";
import { isAppraised, type DialogueRecord, type TurnRecord } from "../core/dialogue.js";
import { emotionState } from "../core/emotion.js";
import type { Preset } from "../core/preset.js";
import type { EpisodeState } from "../episode/episode-state.js";
import { runEpisode } from "../episode/step.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";

/** The person stopped before the dialogue ended (`/quit`, or the end of the input). */
export class ChatEnded extends Error {
  override readonly name = "ChatEnded";
}

export interface ChatOptions {
  scenario: Scenario;
  preset: Preset;
  user: SimulatedUser;
  seed: number;
  dialogueId: string;
  repeat: number;
  input: Readable;
  output: Writable;
  /** Show the emotion, its change and the reasons after each reply. */
  reveal: boolean;
}

/** Lines from a stream, one at a time, undefined at its end; `close` lets the process exit afterwards. */
interface LineReader {
  next(): Promise<string | undefined>;
  close(): void;
}

function lineReader(input: Readable): LineReader {
  const lines: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let ended = false;
  const reader = createInterface({ input, terminal: false, crlfDelay: Infinity });
  reader.on("line", (line) => {
    const next = waiting.shift();
    if (next !== undefined) next(line);
    else lines.push(line);
  });
  reader.on("close", () => {
    ended = true;
    for (const next of waiting.splice(0)) next(undefined);
  });
  return {
    next: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    // A readline interface left open keeps a terminal's stdin referenced: the process would wait
    // for input after the dialogue is saved. Closing it pauses the stream; nothing else holds it.
    close: () => {
      reader.close();
      input.pause();
    },
  };
}

/** The chat's commands: a line starting with "/" is one of these, never a reply to the user. */
export const CHAT_COMMANDS: ReadonlyArray<{ name: string; description: string }> = [
  { name: "/help", description: "list these commands" },
  { name: "/reveal", description: "turn the emotion and its reasons after each reply on or off" },
  { name: "/scenario", description: "show the scenario and the user's persona again" },
  { name: "/quit", description: "stop without saving" },
];

function helpText(): string {
  const width = Math.max(...CHAT_COMMANDS.map((command) => command.name.length));
  return [
    "commands (a line that starts with / is a command, never sent to the user):",
    ...CHAT_COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.description}`),
    "anything else is your reply to the user",
  ].join("\n");
}

/** A rubric item as the offline user records it in `appraisal.items`. */
interface RubricItem {
  id: string;
  value: number;
  description?: string;
}

function rubricItems(appraisal: Record<string, unknown> | undefined): RubricItem[] {
  const items = appraisal?.items;
  if (!Array.isArray(items)) return [];
  return items.filter(
    (item): item is RubricItem =>
      typeof item === "object" &&
      item !== null &&
      typeof (item as RubricItem).id === "string" &&
      typeof (item as RubricItem).value === "number",
  );
}

/** The reasons an LLM user gave (`appraisal.reasons`), when it gave a list of them. */
function statedReasons(appraisal: Record<string, unknown> | undefined): string[] {
  const reasons = appraisal?.reasons;
  return Array.isArray(reasons) ? reasons.filter((reason): reason is string => typeof reason === "string") : [];
}

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

/**
 * What the person sees of one turn with `reveal`: the emotion and its change, then why: the rubric
 * items that fired (offline user) or the reasons given (LLM user), the detectors' adjustments, the
 * flags and the hidden-intention verdict.
 */
export function revealTurn(turn: TurnRecord, before: number): string {
  if (!isAppraised(turn)) return `  [not appraised: the preset stops before the user reads this reply; emotion stays ${turn.user.emotion}]`;
  const { user } = turn;
  const lines = [
    `  [emotion ${before} -> ${user.emotion} (${signed(user.delta)}), state ${emotionState(user.emotion)}; the simulated user proposed ${signed(user.simulatorDelta)}]`,
  ];
  for (const item of rubricItems(user.appraisal))
    lines.push(`  [rubric ${item.id} ${signed(item.value)}${item.description !== undefined ? `: ${item.description}` : ""}]`);
  const drift = user.appraisal?.drift;
  if (typeof drift === "number" && drift !== 0) lines.push(`  [drift ${signed(drift)}: the user's own trend, whatever the reply]`);
  for (const reason of statedReasons(user.appraisal)) lines.push(`  [reason: ${reason}]`);
  for (const adjustment of user.adjustments)
    lines.push(
      `  [adjustment ${adjustment.kind} ${signed(adjustment.value)}${adjustment.evidence !== undefined ? `: ${adjustment.evidence}` : ""}]`,
    );
  if (user.flags.length > 0) lines.push(`  [flags: ${user.flags.join(", ")}]`);
  if (user.hid !== undefined) lines.push(`  [addressed what the user needs but never said: ${user.hid}]`);
  return lines.join("\n");
}

/**
 * Plays one dialogue with the person as the agent; resolves with its record once the dialogue has
 * ended, or with undefined when the person stopped first (nothing to save). Lines that start with
 * "/" are commands (CHAT_COMMANDS): none reaches the simulated user or is scored. The input is
 * released when the session ends, so a terminal's process exits once the caller is done.
 */
export async function chatSession(options: ChatOptions): Promise<DialogueRecord | undefined> {
  const { output, scenario } = options;
  const reader = lineReader(options.input);
  const write = (text: string) => output.write(`${text}\n`);
  const echo = (options.input as { isTTY?: boolean }).isTTY !== true;
  let reveal = options.reveal;
  let before = options.preset.start;
  const describeScenario = () => {
    write(
      `Scenario ${scenario.id} (${scenario.type}, preset ${options.preset.name}, up to ${options.preset.maxTurns} replies). You are the listener.`,
    );
    if (scenario.type !== "cooperative") write(`The user: ${scenario.persona.description}`);
  };
  /** Runs a command line; returns true when the person asked to stop. */
  const command = (line: string): boolean => {
    const name = line.split(/\s+/)[0]!.toLowerCase();
    if (name === "/quit" || name === "/exit") return true;
    if (name === "/help" || name === "/?") write(helpText());
    else if (name === "/reveal") {
      reveal = !reveal;
      write(reveal ? "(reveal on: the emotion and its reasons follow each reply)" : "(reveal off)");
    } else if (name === "/scenario") describeScenario();
    else write(`unknown command ${name}: nothing was sent to the user; /help lists the commands`);
    return false;
  };
  const person: Agent = {
    id: "human",
    async reply(input: AgentInput): Promise<AgentReply> {
      const last = input.history.at(-1)?.content ?? "";
      write(`\nuser> ${last}`);
      for (;;) {
        output.write("you> ");
        const line = await reader.next();
        // Piped input (a script, a test) is not echoed by a terminal: show it, so the transcript reads.
        if (line !== undefined && echo) write(line);
        if (line === undefined) throw new ChatEnded("the input ended before the dialogue did");
        const text = line.trim();
        if (text.startsWith("/")) {
          if (command(text)) throw new ChatEnded("the person stopped before the dialogue ended");
          continue;
        }
        if (text !== "") return { text };
        write("(type your reply; /help lists the commands, /quit stops)");
      }
    },
  };
  try {
    describeScenario();
    write("(type /help for the commands)");
    const record = await runEpisode({
      dialogueId: options.dialogueId,
      condition: "human",
      scenario,
      preset: options.preset,
      repeat: options.repeat,
      seed: options.seed,
      agent: person,
      user: options.user,
      onTurn: (turn: TurnRecord, state: EpisodeState) => {
        if (reveal) write(revealTurn(turn, before));
        before = state.emotion;
      },
    });
    if (record.status === "error") {
      if (record.error?.kind === "stopped") {
        if (reveal) write(`\nThe user's hidden intention was: ${scenario.hiddenIntention.text}`);
        return undefined;
      }
      throw new Error(`the dialogue failed: ${record.error?.message ?? "unknown error"}`);
    }
    const last = record.turns.at(-1);
    if (last !== undefined && isAppraised(last)) write(`\nuser> ${last.user.text}`);
    write(`\nThe dialogue ended (${record.endReason}) at emotion ${record.final.emotion}: FS ${record.final.fs.toFixed(2)}.`);
    if (reveal) write(`The user's hidden intention was: ${scenario.hiddenIntention.text}`);
    return record;
  } finally {
    reader.close();
  }
}
