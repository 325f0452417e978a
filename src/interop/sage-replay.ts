/**
 * The replay check of the `sage` preset: every dialogue of a SAGE result file is played again
 * through this project's own episode machine (runEpisode, step and the end rules, under the
 * `sage` preset), with an agent that says what the file's assistant said and a simulated user that
 * proposes the change the file's simulator recorded (`planning.change`) and says what it said. The
 * loop is faithful when, for every dialogue, the machine reproduces the recorded emotion after
 * every turn, stops where SAGE stopped (the same number of agent replies, the last one unappraised
 * when SAGE's was) and ends on the recorded final emotion. No detector runs: SAGE has no
 * deterministic adjustments, so the recorded change is the whole change.
 */
import { basename } from "node:path";
import type { Agent, AgentInput, AgentReply } from "../agents/agent.js";
import { describeDialogueError, EndReasonSchema, isAppraised, type DialogueRecord, type EndReason } from "../core/dialogue.js";
import { formatIssues } from "../core/errors.js";
import { getPreset, type Preset } from "../core/preset.js";
import { runEpisode } from "../episode/step.js";
import { profileToScenario, SageProfileSchema } from "../scenarios/sage-profiles.js";
import { ScenarioSchema, type Scenario } from "../scenarios/scenario-schema.js";
import {
  SimulatedUserError,
  type Appraisal,
  type AppraisalInput,
  type ReplyInput,
  type SimulatedUser,
  type UserReply,
} from "../simulated-user/simulated-user.js";
import { readSageResultLines, type SageResultLine, type SkippedLine } from "./sage-results.js";

/** What replaying one dialogue showed. */
export interface DialogueReplay {
  /** The dialogue's id in the file, and its 1-based line. */
  id: string;
  line: number;
  /** True when every recorded emotion, the stopping point and the final emotion were reproduced. */
  ok: boolean;
  /** What differed, turn by turn, in words (empty when ok). */
  problems: string[];
  /** Agent replies in the file, and how many of them the simulator appraised. */
  recorded: { replies: number; appraised: number; final: number };
  /** What the machine did: replies, appraised replies, why it ended and the final emotion (null if it could not run). */
  replayed: { replies: number; appraised: number; endReason: EndReason; final: number } | null;
}

export interface FileReplay {
  file: string;
  dialogues: DialogueReplay[];
  /** Lines that are not SAGE result lines (they cannot be replayed). */
  skipped: SkippedLine[];
}

/** Replays every valid dialogue of a SAGE result file through the given preset (default `sage`). */
export async function replaySageResultFile(file: string, options: { preset?: Preset } = {}): Promise<FileReplay> {
  const preset = options.preset ?? getPreset("sage");
  const { entries, skipped } = readSageResultLines(file);
  const dialogues: DialogueReplay[] = [];
  for (const entry of entries) dialogues.push(await replaySageDialogue(entry.value, { preset, file, line: entry.line }));
  return { file, dialogues, skipped };
}

/** Replays one SAGE dialogue and compares the machine's course with the recorded one. */
export async function replaySageDialogue(
  dialogue: SageResultLine,
  where: { preset: Preset; file: string; line: number },
): Promise<DialogueReplay> {
  const [opening, ...rest] = dialogue.history;
  const agentTurns = rest.filter((_, index) => index % 2 === 0);
  const userTurns = rest.filter((_, index) => index % 2 === 1);
  const recorded = { replies: agentTurns.length, appraised: userTurns.length, final: dialogue.emo_point };
  const base = { id: dialogue.id, line: where.line, recorded };
  const problems: string[] = [];

  const scenario = replayScenario(dialogue, opening?.content ?? "");
  if (typeof scenario === "string") return { ...base, ok: false, problems: [scenario], replayed: null };
  const openingEmotion = opening?.["emotion-point"];
  if (openingEmotion !== undefined && openingEmotion !== where.preset.start)
    problems.push(`the opening is at emotion ${openingEmotion}, the preset starts at ${where.preset.start}`);

  const record = await runEpisode({
    dialogueId: `replay/${basename(where.file)}/${where.line}`,
    condition: "replay",
    scenario,
    preset: where.preset,
    repeat: 0,
    seed: 0,
    agent: new ReplayAgent(agentTurns.map((turn) => turn.content)),
    user: new ReplayUser(dialogue),
    detectors: [],
  });
  const appraised = record.turns.filter(isAppraised);
  const replayed = { replies: record.turns.length, appraised: appraised.length, endReason: record.endReason, final: record.final.emotion };
  if (record.status === "error") problems.push(record.error === undefined ? "the replay failed" : describeDialogueError(record.error));
  for (const [index, turn] of appraised.entries()) {
    const reported = userTurns[index]?.["emotion-point"];
    if (reported === undefined) problems.push(`turn ${index + 1}: the file records no emotion-point`);
    else if (reported !== turn.user.emotion) problems.push(`turn ${index + 1}: emotion ${turn.user.emotion}, the file records ${reported}`);
  }
  if (record.status === "done") {
    if (replayed.replies !== recorded.replies) problems.push(stopProblem(record, recorded.replies));
    if (replayed.appraised !== recorded.appraised)
      problems.push(`${replayed.appraised} appraised replies, the file has ${recorded.appraised}`);
    if (replayed.final !== recorded.final) problems.push(`final emotion ${replayed.final}, the file's emo_point is ${recorded.final}`);
  }
  return { ...base, ok: problems.length === 0, problems, replayed };
}

function stopProblem(record: DialogueRecord, recordedReplies: number): string {
  return record.turns.length < recordedReplies
    ? `the preset's loop ends (${record.endReason}) after ${record.turns.length} agent replies; SAGE went on to ${recordedReplies}`
    : `the preset's loop wants ${record.turns.length} agent replies; SAGE stopped after ${recordedReplies}`;
}

/** The dialogue's profile as a scenario (opening: the recorded first message), or what is missing. */
function replayScenario(dialogue: SageResultLine, opening: string): Scenario | string {
  const profile = SageProfileSchema.safeParse({ ...dialogue, first_talk: opening });
  if (!profile.success) return `cannot form the dialogue's scenario:\n${formatIssues(profile.error.issues)}`;
  const scenario = ScenarioSchema.safeParse(profileToScenario(profile.data, "sage"));
  return scenario.success ? scenario.data : `cannot form the dialogue's scenario:\n${formatIssues(scenario.error.issues)}`;
}

/** Says the file's assistant replies in order; asked for one more, it says the file has none. */
class ReplayAgent implements Agent {
  readonly id = "sage-replay";
  constructor(private readonly replies: readonly string[]) {}

  async reply(input: AgentInput): Promise<AgentReply> {
    const text = this.replies[input.turnIndex];
    if (text === undefined)
      throw new Error(`the preset's loop asks for agent reply ${input.turnIndex + 1}; SAGE stopped after ${this.replies.length}`);
    return { text };
  }
}

/**
 * Proposes the change SAGE's simulator recorded for each reply (`planning.change`, an integer) and
 * says what SAGE's user said. A reply SAGE never appraised, or a change that is not an integer,
 * is an error: nothing is defaulted.
 */
class ReplayUser implements SimulatedUser {
  readonly id = "sage-replay";
  private readonly users: SageResultLine["history"];

  constructor(dialogue: SageResultLine) {
    this.users = dialogue.history.slice(1).filter((_, index) => index % 2 === 1);
  }

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    const entry = this.users[input.turnIndex];
    if (entry === undefined) throw new SimulatedUserError(`the preset's loop appraises agent reply ${input.turnIndex + 1}; SAGE never did`);
    const change = (entry.planning as { change?: unknown } | undefined)?.change;
    if (typeof change !== "number" || !Number.isInteger(change)) {
      throw new SimulatedUserError(
        `turn ${input.turnIndex + 1}: the file's planning.change is ${JSON.stringify(change) ?? "missing"}, not an integer`,
      );
    }
    return { simulatorDelta: change, details: { replayed: true }, memory: input.memory };
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    // SAGE's user has no structured leave: its goodbye words in the text are what end the dialogue.
    return { text: this.users[input.turnIndex]?.content ?? "", left: false };
  }
}

/** How many replays failed, and whether any line could not be read (either fails the check). */
export function replayFailures(files: readonly FileReplay[]): { dialogues: number; lines: number } {
  return {
    dialogues: files.reduce((sum, file) => sum + file.dialogues.filter((dialogue) => !dialogue.ok).length, 0),
    lines: files.reduce((sum, file) => sum + file.skipped.length, 0),
  };
}

/** Most failing dialogues listed per file; the count says how many more. */
const LISTED_FAILURES = 10;

/** The replay check as text: per file, how many dialogues replay exactly and how they ended, then each failure. */
export function renderReplay(files: readonly FileReplay[], presetName: string): string {
  const lines: string[] = [];
  for (const file of files) {
    const passed = file.dialogues.filter((dialogue) => dialogue.ok);
    const ends = new Map<string, number>();
    for (const dialogue of passed)
      if (dialogue.replayed !== null) ends.set(dialogue.replayed.endReason, (ends.get(dialogue.replayed.endReason) ?? 0) + 1);
    const mostAppraised = Math.max(0, ...passed.map((dialogue) => dialogue.recorded.appraised));
    const endText = EndReasonSchema.options
      .filter((reason) => ends.has(reason))
      .map((reason) => `${reason} ${ends.get(reason)}`)
      .join(", ");
    lines.push(
      `${file.file}: ${passed.length} of ${file.dialogues.length} dialogues replay exactly through the ${presetName} preset` +
        (passed.length > 0 ? ` (ends: ${endText}; at most ${mostAppraised} appraised replies)` : ""),
    );
    const failed = file.dialogues.filter((dialogue) => !dialogue.ok);
    for (const dialogue of failed.slice(0, LISTED_FAILURES))
      lines.push(`  line ${dialogue.line} (${dialogue.id}): ${dialogue.problems.join("; ").replace(/\n/gu, " ")}`);
    if (failed.length > LISTED_FAILURES) lines.push(`  ... and ${failed.length - LISTED_FAILURES} more`);
    for (const skipped of file.skipped) lines.push(`  line ${skipped.line}: cannot be replayed: ${skipped.message.replace(/\n/gu, " ")}`);
  }
  return lines.join("\n");
}
