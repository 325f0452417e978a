import type { Agent, AgentReply } from "../agents/agent.js";
import { codePointCount } from "../core/code-points.js";
import type { DialogueError, DialogueRecord, TurnRecord } from "../core/dialogue.js";
import { applyChange } from "../core/emotion.js";
import { AebError } from "../core/errors.js";
import type { Preset } from "../core/preset.js";
import { loadLexicon } from "../lexicon/lexicon.js";
import { computeAdjustments, forceChange } from "../reward/adjustments.js";
import type { Detector } from "../reward/detector.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { dialogueErrorOf, inStage, type StageTiming } from "./dialogue-error.js";
import { dialogueRecord } from "./episode-record.js";
import { endReasonOf, goodbyeWordIn, type EndRule } from "./end-rules.js";
import type { EpisodeState } from "./episode-state.js";

/** What a step needs besides the state: the scenario, the rules and the simulated user. */
export interface StepContext {
  scenario: Scenario;
  preset: Preset;
  user: SimulatedUser;
  dialogueId: string;
  detectors?: readonly Detector[];
  endRules?: readonly EndRule[];
  signal?: AbortSignal;
  /** Told how long each call of the simulated user took and whether it succeeded (the server's metrics, the step pool's stage times). */
  onStage?(timing: StageTiming): void;
}

/** A step on a finished episode, or any other misuse of the state machine. */
export class EpisodeError extends AebError {
  override readonly name = "EpisodeError";
}

/** What starting an episode may need besides the scenario: the user who writes a missing opening. */
export interface StartOptions {
  /** Writes the opening when the scenario has none (SimulatedUser.open). */
  user?: SimulatedUser;
  dialogueId?: string;
  signal?: AbortSignal;
  onStage?(timing: StageTiming): void;
}

/**
 * A new episode at the preset's start emotion. The conversation opens with the scenario's opening
 * line or, when the scenario has none (SAGE/RLVER profiles without `first_talk`), with the first
 * message the simulated user writes from the scenario, as RLVER's simulator does.
 */
export async function startEpisode(scenario: Scenario, preset: Preset, seed: number, options: StartOptions = {}): Promise<EpisodeState> {
  const opening = scenario.opening ?? (await inStage("opening", () => writeOpening(scenario, preset, seed, options), options.onStage));
  return {
    scenarioId: scenario.id,
    preset: preset.name,
    seed,
    emotion: preset.start,
    turnIndex: 0,
    history: [{ role: "user", content: opening }],
    memory: {},
    done: false,
    endReason: null,
  };
}

async function writeOpening(scenario: Scenario, preset: Preset, seed: number, options: StartOptions): Promise<string> {
  const { user } = options;
  if (user?.open === undefined) {
    throw new EpisodeError(
      `scenario ${scenario.id} has no opening line and ${user === undefined ? "no simulated user was given to write one" : `simulated user "${user.id}" cannot write one`}`,
    );
  }
  const text = (
    await user.open({
      scenario,
      preset,
      emotion: preset.start,
      seed,
      dialogueId: options.dialogueId ?? scenario.id,
      signal: options.signal,
    })
  ).trim();
  if (text === "") throw new EpisodeError(`simulated user "${user.id}" wrote an empty opening for scenario ${scenario.id}`);
  return text;
}

/**
 * The one turn of the benchmark, shared by the runner and the RL server: the simulated user
 * appraises the agent's reply, the deterministic adjustments apply on top, the emotion moves
 * (clamped by the preset), the user answers in persona, and the end rules decide. Under a preset
 * that does not appraise the reply at its turn limit (sage), that reply is recorded as it is and
 * ends the dialogue, with no appraisal, no change and no user answer. A failure of the simulated
 * user is thrown as a StepError naming the stage (`appraisal`, `user_reply`); a misuse of the state
 * machine (a finished episode, another scenario's state) as an EpisodeError.
 */
export async function step(
  state: EpisodeState,
  agentReply: AgentReply,
  context: StepContext,
): Promise<{ state: EpisodeState; turn: TurnRecord }> {
  if (state.done) throw new EpisodeError(`episode ${context.dialogueId} is already over (${state.endReason})`);
  const { scenario, preset, user } = context;
  if (scenario.id !== state.scenarioId) throw new EpisodeError(`state is for scenario ${state.scenarioId}, not ${scenario.id}`);
  const lexicon = loadLexicon(scenario.language);
  const lastUser = state.history.at(-1);
  if (lastUser?.role !== "user") throw new EpisodeError("the agent must answer a user turn");
  const turnsPlayed = state.turnIndex + 1;
  if (turnsPlayed > preset.maxTurns)
    throw new EpisodeError(`episode ${context.dialogueId} is past the turn limit of preset ${preset.name} (${preset.maxTurns})`);
  if (turnsPlayed === preset.maxTurns && !preset.appraiseReplyAtLimit) return unappraisedLastTurn(state, agentReply);

  const userInput = {
    scenario,
    preset,
    history: state.history,
    agentReply: agentReply.text,
    turnIndex: state.turnIndex,
    manipulationTurn: manipulationTurnOf(scenario),
    emotion: state.emotion,
    memory: state.memory,
    seed: state.seed,
    dialogueId: context.dialogueId,
    signal: context.signal,
  };
  const appraisal = await inStage("appraisal", () => user.appraise(userInput), context.onStage);

  const previousReplies = state.history.filter((turn) => turn.role === "assistant").map((turn) => turn.content);
  const detected = computeAdjustments({ reply: agentReply.text, userText: lastUser.content, previousReplies, lexicon }, context.detectors);
  // Injection and empty replies override everything: the recorded adjustments add up to the forced change.
  const { adjustments, total: adjustmentTotal } = forceChange(detected, appraisal.simulatorDelta, preset.clamp);
  const { emotion, delta } = applyChange(state.emotion, appraisal.simulatorDelta, adjustmentTotal, preset);

  const reply =
    appraisal.fusedReply ??
    (await inStage("user_reply", () => user.reply({ ...userInput, appraisal, emotionAfter: emotion }), context.onStage));
  const endReason = endReasonOf({ emotion, turnsPlayed, userLeft: reply.left, userText: reply.text, preset }, context.endRules);
  // A goodbye read from the words of the reply (not the user's structured decision) is marked, so a reader sees why it ended.
  const goodbyeFlag = endReason === "user_left" && !reply.left && goodbyeWordIn(reply.text, preset) !== null ? ["goodbye_words"] : [];
  const flags = [
    ...new Set([
      ...(agentReply.flags ?? []),
      ...adjustments.map((adjustment) => adjustment.kind),
      ...(appraisal.flags ?? []),
      ...(reply.flags ?? []),
      ...goodbyeFlag,
    ]),
  ];

  const turn: TurnRecord = {
    index: state.turnIndex,
    agent: agentRecord(agentReply),
    user: {
      text: reply.text,
      emotion,
      delta,
      simulatorDelta: appraisal.simulatorDelta,
      adjustments,
      flags,
      ...(appraisal.hid !== undefined ? { hid: appraisal.hid } : {}),
      appraisal: appraisal.details,
    },
  };
  return {
    turn,
    state: {
      ...state,
      emotion,
      turnIndex: turnsPlayed,
      history: [...state.history, { role: "assistant", content: agentReply.text }, { role: "user", content: reply.text }],
      memory: { ...appraisal.memory, ...(reply.memory ?? {}) },
      done: endReason !== null,
      endReason,
    },
  };
}

/** The reply at the turn limit of a preset that does not appraise it: recorded, and the episode ends. */
function unappraisedLastTurn(state: EpisodeState, agentReply: AgentReply): { state: EpisodeState; turn: TurnRecord } {
  const turn: TurnRecord = {
    index: state.turnIndex,
    agent: agentRecord(agentReply),
    user: { appraised: false, emotion: state.emotion, adjustments: [], flags: [...new Set(agentReply.flags ?? [])] },
  };
  return {
    turn,
    state: {
      ...state,
      turnIndex: state.turnIndex + 1,
      history: [...state.history, { role: "assistant", content: agentReply.text }],
      done: true,
      endReason: "max_turns",
    },
  };
}

function agentRecord(agentReply: AgentReply): TurnRecord["agent"] {
  return {
    text: agentReply.text,
    ...(agentReply.think !== undefined ? { think: agentReply.think } : {}),
    chars: codePointCount(agentReply.text),
  };
}

export interface EpisodeSpec {
  dialogueId: string;
  condition: string;
  scenario: Scenario;
  preset: Preset;
  repeat: number;
  seed: number;
  agent: Agent;
  user: SimulatedUser;
  /** The deterministic detectors (default: all of them); the SAGE replay check passes none. */
  detectors?: readonly Detector[];
  signal?: AbortSignal;
  /** Told of every turn as it is played, with the state after it (`aeb chat` shows the emotion moving). */
  onTurn?(turn: TurnRecord, state: EpisodeState): void;
  /** Told how long each call of the agent and the simulated user took. */
  onStage?(timing: StageTiming): void;
}

/**
 * Plays one dialogue to its end. A failure of the agent or the user ends the dialogue as `error`
 * with the reason; it is never scored as a success or a collapse.
 */
export async function runEpisode(spec: EpisodeSpec): Promise<DialogueRecord> {
  const { scenario, preset, onStage } = spec;
  let state: EpisodeState | undefined;
  const turns: TurnRecord[] = [];
  let error: DialogueError | undefined;
  try {
    state = await startEpisode(scenario, preset, spec.seed, { user: spec.user, dialogueId: spec.dialogueId, signal: spec.signal, onStage });
    while (!state.done) {
      const current = state;
      const agentReply = await inStage(
        "agent",
        () =>
          spec.agent.reply({
            history: current.history,
            language: scenario.language,
            turnIndex: current.turnIndex,
            seed: spec.seed,
            dialogueId: spec.dialogueId,
            signal: spec.signal,
          }),
        onStage,
      );
      const result = await step(state, agentReply, {
        scenario,
        preset,
        user: spec.user,
        dialogueId: spec.dialogueId,
        detectors: spec.detectors,
        signal: spec.signal,
        onStage,
      });
      state = result.state;
      turns.push(result.turn);
      spec.onTurn?.(result.turn, state);
    }
  } catch (caught) {
    error = dialogueErrorOf(caught);
  }
  return dialogueRecord({
    id: spec.dialogueId,
    condition: spec.condition,
    scenario,
    preset,
    repeat: spec.repeat,
    seed: spec.seed,
    state,
    turns,
    ...(error !== undefined ? { error } : {}),
  });
}
