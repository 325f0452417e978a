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

/** Lines from a stream, one at a time, undefined at its end. */
function lineReader(input: Readable): () => Promise<string | undefined> {
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
  return () => {
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => waiting.push(resolve));
  };
}

/** What the person sees of one turn with `reveal`: the emotion, its change and why. */
export function revealTurn(turn: TurnRecord, before: number): string {
  if (!isAppraised(turn)) return `  [not appraised: the preset stops before the user reads this reply; emotion stays ${turn.user.emotion}]`;
  const { user } = turn;
  const sign = (value: number) => (value > 0 ? `+${value}` : String(value));
  const lines = [`  [emotion ${before} -> ${user.emotion} (${sign(user.delta)}), state ${emotionState(user.emotion)}; the simulated user proposed ${sign(user.simulatorDelta)}]`];
  for (const adjustment of user.adjustments) lines.push(`  [${adjustment.kind} ${sign(adjustment.value)}${adjustment.evidence !== undefined ? `: ${adjustment.evidence}` : ""}]`);
  if (user.flags.length > 0) lines.push(`  [flags: ${user.flags.join(", ")}]`);
  if (user.hid !== undefined) lines.push(`  [addressed what the user needs but never said: ${user.hid}]`);
  return lines.join("\n");
}

/**
 * Plays one dialogue with the person as the agent; resolves with its record once the dialogue has
 * ended, or with undefined when the person stopped first (nothing to save).
 */
export async function chatSession(options: ChatOptions): Promise<DialogueRecord | undefined> {
  const { output, scenario } = options;
  const nextLine = lineReader(options.input);
  const write = (text: string) => output.write(`${text}\n`);
  let before = options.preset.start;
  const person: Agent = {
    id: "human",
    async reply(input: AgentInput): Promise<AgentReply> {
      const last = input.history.at(-1)?.content ?? "";
      write(`\nuser> ${last}`);
      for (;;) {
        output.write("you> ");
        const line = await nextLine();
        // Piped input (a script, a test) is not echoed by a terminal: show it, so the transcript reads.
        if (line !== undefined && (options.input as { isTTY?: boolean }).isTTY !== true) write(line);
        if (line === undefined || line.trim() === "/quit") throw new ChatEnded("the person stopped before the dialogue ended");
        if (line.trim() !== "") return { text: line.trim() };
        write("(type your reply, or /quit)");
      }
    },
  };
  write(`Scenario ${scenario.id} (${scenario.type}, preset ${options.preset.name}, up to ${options.preset.maxTurns} replies). You are the listener.`);
  if (scenario.type !== "cooperative") write(`The user: ${scenario.persona.description}`);
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
      if (options.reveal) write(revealTurn(turn, before));
      before = state.emotion;
    },
  });
  if (record.status === "error") {
    if (record.error?.startsWith("ChatEnded") === true) return undefined;
    throw new Error(`the dialogue failed: ${record.error ?? "unknown error"}`);
  }
  const last = record.turns.at(-1);
  if (last !== undefined && isAppraised(last)) write(`\nuser> ${last.user.text}`);
  write(`\nThe dialogue ended (${record.endReason}) at emotion ${record.final.emotion}: FS ${record.final.fs.toFixed(2)}.`);
  return record;
}
