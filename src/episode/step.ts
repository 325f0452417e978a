import type { Agent, AgentReply } from "../agents/agent.js";
import { codePointCount } from "../core/code-points.js";
import type { Adjustment, DialogueRecord, TurnRecord } from "../core/dialogue.js";
import { applyChange } from "../core/emotion.js";
import { AebError } from "../core/errors.js";
import type { Preset } from "../core/preset.js";
import { loadLexicon } from "../lexicon/lexicon.js";
import { computeAdjustments } from "../reward/adjustments.js";
import type { Detector } from "../reward/detector.js";
import { injectionChange } from "../reward/injection.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { manipulationTurnOf } from "../scenarios/type-defaults.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { endReasonOf, type EndRule } from "./end-rules.js";
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
}

/** A step on a finished episode, or any other misuse of the state machine. */
export class EpisodeError extends AebError {
  override readonly name = "EpisodeError";
}

export function startEpisode(scenario: Scenario, preset: Preset, seed: number): EpisodeState {
  return {
    scenarioId: scenario.id,
    preset: preset.name,
    seed,
    emotion: preset.start,
    turnIndex: 0,
    history: [{ role: "user", content: scenario.opening }],
    memory: {},
    done: false,
    endReason: null,
  };
}

/**
 * The one turn of the benchmark, shared by the runner and the RL server: the simulated user
 * appraises the agent's reply, the deterministic adjustments apply on top, the emotion moves
 * (clamped by the preset), the user answers in persona, and the end rules decide.
 */
export async function step(state: EpisodeState, agentReply: AgentReply, context: StepContext): Promise<{ state: EpisodeState; turn: TurnRecord }> {
  if (state.done) throw new EpisodeError(`episode ${context.dialogueId} is already over (${state.endReason})`);
  const { scenario, preset, user } = context;
  if (scenario.id !== state.scenarioId) throw new EpisodeError(`state is for scenario ${state.scenarioId}, not ${scenario.id}`);
  const lexicon = loadLexicon(scenario.language);
  const lastUser = state.history.at(-1);
  if (lastUser?.role !== "user") throw new EpisodeError("the agent must answer a user turn");

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
  const appraisal = await user.appraise(userInput);

  const previousReplies = state.history.filter((turn) => turn.role === "assistant").map((turn) => turn.content);
  const detected = computeAdjustments({ reply: agentReply.text, userText: lastUser.content, previousReplies, lexicon }, context.detectors);
  let adjustments: Adjustment[] = detected.adjustments;
  let adjustmentTotal = detected.total;
  if (detected.injected) {
    // Injection overrides everything: the recorded adjustment makes the parts add up to the forced change.
    const forced = injectionChange(preset.clamp);
    const override = forced - appraisal.simulatorDelta - detected.total;
    adjustments = adjustments.map((adjustment) => (adjustment.kind === "injection" ? { ...adjustment, value: override } : adjustment));
    adjustmentTotal = forced - appraisal.simulatorDelta;
  }
  const { emotion, delta } = applyChange(state.emotion, appraisal.simulatorDelta, adjustmentTotal, preset);

  const reply = appraisal.fusedReply ?? (await user.reply({ ...userInput, appraisal, emotionAfter: emotion }));
  const turnsPlayed = state.turnIndex + 1;
  const endReason = endReasonOf({ emotion, turnsPlayed, userLeft: reply.left, preset }, context.endRules);
  const flags = [...new Set([...(agentReply.flags ?? []), ...adjustments.map((adjustment) => adjustment.kind), ...(appraisal.flags ?? []), ...(reply.flags ?? [])])];

  const turn: TurnRecord = {
    index: state.turnIndex,
    agent: { text: agentReply.text, ...(agentReply.think !== undefined ? { think: agentReply.think } : {}), chars: codePointCount(agentReply.text) },
    user: {
      text: reply.text,
      emotion,
      delta,
      simulatorDelta: appraisal.simulatorDelta,
      adjustments,
      flags,
      hid: appraisal.hid,
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

export interface EpisodeSpec {
  dialogueId: string;
  condition: string;
  scenario: Scenario;
  preset: Preset;
  repeat: number;
  seed: number;
  agent: Agent;
  user: SimulatedUser;
  signal?: AbortSignal;
}

/**
 * Plays one dialogue to its end. A failure of the agent or the user ends the dialogue as `error`
 * with the reason; it is never scored as a success or a collapse.
 */
export async function runEpisode(spec: EpisodeSpec): Promise<DialogueRecord> {
  const { scenario, preset } = spec;
  let state = startEpisode(scenario, preset, spec.seed);
  const turns: TurnRecord[] = [];
  let error: string | undefined;
  try {
    while (!state.done) {
      const agentReply = await spec.agent.reply({
        history: state.history,
        language: scenario.language,
        turnIndex: state.turnIndex,
        seed: spec.seed,
        dialogueId: spec.dialogueId,
        signal: spec.signal,
      });
      const result = await step(state, agentReply, { scenario, preset, user: spec.user, dialogueId: spec.dialogueId, signal: spec.signal });
      state = result.state;
      turns.push(result.turn);
    }
  } catch (caught) {
    error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  }
  return {
    id: spec.dialogueId,
    condition: spec.condition,
    scenarioId: scenario.id,
    type: scenario.type,
    repeat: spec.repeat,
    seed: spec.seed,
    status: error === undefined ? "done" : "error",
    endReason: error === undefined ? (state.endReason ?? "max_turns") : "error",
    ...(error !== undefined ? { error } : {}),
    preset: preset.name,
    manipulationTurn: manipulationTurnOf(scenario),
    opening: { text: scenario.opening, emotion: preset.start },
    turns,
    final: { emotion: state.emotion, fs: state.emotion / 100 },
  };
}
