import { z } from "zod";
import type { ChatTurn } from "../core/dialogue.js";
import type { Preset } from "../core/preset.js";
import { emotionState } from "../core/emotion.js";
import { deriveSeed } from "../core/random.js";
import type { ChatModel } from "../llm/chat-model.js";
import { askForJson, StructuredOutputError } from "../llm/structured-output.js";
import { fillPrompt, loadPromptStrings, loadPromptTemplate } from "../prompts/prompt-templates.js";
import type { Language } from "../lexicon/lexicon.js";
import type { RubricItem, Scenario } from "../scenarios/scenario-schema.js";
import { loadTypeDefaults, rubricOf } from "../scenarios/type-defaults.js";
import { personaFlags } from "./persona-check.js";
import { SimulatedUserError, type Appraisal, type AppraisalInput, type OpeningInput, type ReplyInput, type SimulatedUser, type UserReply } from "./simulated-user.js";

/**
 * The range the project's JSON prompt states when the preset neither bounds nor clamps the change
 * (rlver): the whole emotion scale, the largest move that means anything on 0-100. It is not
 * enforced; only `simulatorChangeBound` is.
 */
export const EMOTION_SCALE_SPAN = 100;

const IntegerLike = z.union([z.number(), z.string().trim().regex(/^[+-−]?\d+$/u).transform((text) => Number(text.replace("−", "-")))]).pipe(z.number().int());

const AppraisalFields = {
  understanding: z.string().min(1),
  addressedHiddenIntention: z.enum(["yes", "partial", "no"]),
  innerReaction: z.string().min(1),
  change: IntegerLike,
  reasons: z.array(z.string()).default([]),
};
const ReplyFields = { reply: z.string().trim().min(1), leave: z.boolean().default(false) };

/** The first message of a scenario without an opening line. */
export const OpeningOutputSchema = z.object({ opening: z.string().trim().min(1) });

export const AppraisalOutputSchema = z.object(AppraisalFields);
export const ReplyOutputSchema = z.object(ReplyFields);
export const FusedOutputSchema = z.object({ ...AppraisalFields, ...ReplyFields });

export interface LlmUserOptions {
  /** One call per turn for appraisal and reply together (cheaper; the reply cannot see the clamped emotion). */
  fused: boolean;
  /** Unusable outputs are sent back with the error this many times before the dialogue ends as `error`. */
  maxOutputRetries: number;
  temperature?: number;
  maxTokens?: number;
}

/**
 * SAGE's simulated user on an LLM, two stages per turn: an appraisal (what the agent meant, whether
 * it addressed the hidden intention, the inner reaction, a signed change with reasons, following the
 * scenario's adversarial trait), then the reply in persona with the tone of the new emotion and
 * the moves of the trait's script. Agent text reaches the model only as quoted JSON data.
 */
export class LlmSimulatedUser implements SimulatedUser {
  readonly id: string;

  constructor(
    private readonly model: ChatModel,
    private readonly options: LlmUserOptions,
  ) {
    this.id = `llm:${model.id}${options.fused ? ":fused" : ""}`;
  }

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    const range = changeRange(input.preset);
    const values = { ...promptValues(input, input.emotion), minChange: -range.shown, maxChange: range.shown };
    if (this.options.fused) {
      const output = await this.ask(loadPromptTemplate(input.scenario.language, "simulator-fused"), values, FusedOutputSchema, input, "fused", (value) => checkRange(value.change, range.bound));
      const flags = personaFlags(output.reply, input.scenario.language);
      return {
        simulatorDelta: output.change,
        hid: output.addressedHiddenIntention,
        details: appraisalDetails(output),
        fusedReply: { text: output.reply, left: output.leave, flags },
        memory: input.memory,
      };
    }
    const output = await this.ask(loadPromptTemplate(input.scenario.language, "simulator-appraisal"), values, AppraisalOutputSchema, input, "appraisal", (value) => checkRange(value.change, range.bound));
    return { simulatorDelta: output.change, hid: output.addressedHiddenIntention, details: appraisalDetails(output), memory: input.memory };
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    const values = { ...promptValues(input, input.emotionAfter), innerReaction: String(input.appraisal.details.innerReaction ?? "") };
    const output = await this.ask(loadPromptTemplate(input.scenario.language, "simulator-reply"), values, ReplyOutputSchema, input, "reply", () => null);
    return { text: output.reply, left: output.leave, flags: personaFlags(output.reply, input.scenario.language) };
  }

  /**
   * The first message of a scenario that has none (SAGE/RLVER profiles without `first_talk`),
   * written in persona from the scenario, as RLVER's simulator writes it. The same seed for every
   * condition, so a server that honours seeds opens each scenario and repeat the same way for all.
   */
  async open(input: OpeningInput): Promise<string> {
    const strings = loadPromptStrings(input.scenario.language);
    const state = emotionState(input.emotion);
    const values = {
      persona: partsOf(input.scenario).persona,
      background: input.scenario.background,
      hiddenIntention: input.scenario.hiddenIntention.text,
      emotion: input.emotion,
      state,
      stateDescription: strings.states[state],
      language: strings.language,
    };
    const output = await this.ask(openingTemplate(input.scenario.language), values, OpeningOutputSchema, { ...input, turnIndex: "opening" }, "opening", () => null);
    return output.opening;
  }

  /** One structured call; an answer still unusable after the retries ends the dialogue as `error`. */
  private async ask<T>(
    template: string,
    values: Record<string, string | number>,
    schema: z.ZodType<T>,
    input: CallContext,
    stage: string,
    check: (value: T) => string | null,
  ): Promise<T> {
    try {
      return await askForJson(this.model, {
        system: fillPrompt(template, values),
        instruction: input.scenario.language === "zh" ? "请只输出 JSON 对象。" : "Answer with the JSON object only.",
        schema,
        name: `aeb_simulator_${stage}`,
        sampleKey: `${input.dialogueId}#${input.turnIndex === "opening" ? "opening" : `turn${input.turnIndex}`}#simulator-${stage}`,
        retries: this.options.maxOutputRetries,
        temperature: this.options.temperature,
        maxTokens: this.options.maxTokens,
        seedFor: (attempt) => deriveSeed(input.seed, input.turnIndex, stage, attempt) % 2_147_483_647,
        check,
        signal: input.signal,
      });
    } catch (error) {
      if (error instanceof StructuredOutputError) throw new SimulatedUserError(`simulator ${stage} output unusable after ${this.options.maxOutputRetries + 1} tries: ${error.message.replace(/^.*? tries: /, "")}`);
      throw error;
    }
  }
}

/** Where a model call happens: a turn of the dialogue, or its opening. */
type CallContext = Pick<AppraisalInput, "scenario" | "dialogueId" | "seed" | "signal"> & { turnIndex: number | "opening" };

/**
 * The opening template; one place loads it, so a prompt pack can supply its own version.
 * prompts/<language>/simulator-opening.md
 */
export function openingTemplate(language: Language): string {
  return loadPromptTemplate(language, "simulator-opening");
}

/**
 * The change an LLM simulator may propose: `bound` (the preset's simulatorChangeBound) is enforced,
 * an answer outside it being sent back; null accepts any integer, as SAGE's, RLVER's and the
 * paper's parsers do. `shown` is the range the JSON prompt states: the bound, else the clamp, else
 * the whole scale.
 */
export function changeRange(preset: Preset): { bound: number | null; shown: number } {
  const bound = preset.simulatorChangeBound;
  return { bound, shown: bound ?? preset.clamp ?? EMOTION_SCALE_SPAN };
}

function checkRange(change: number, bound: number | null): string | null {
  return bound !== null && Math.abs(change) > bound ? `"change" must be an integer from ${-bound} to ${bound}, got ${change}` : null;
}

function appraisalDetails(output: z.infer<typeof AppraisalOutputSchema>): Record<string, unknown> {
  return {
    understanding: output.understanding,
    innerReaction: output.innerReaction,
    reasons: output.reasons,
    addressedHiddenIntention: output.addressedHiddenIntention,
    change: output.change,
  };
}

/** The conversation as JSON data: agent text can never close the block or pose as the user. */
export function dialogueAsData(history: readonly ChatTurn[], agentReply: string | undefined): string {
  const neutralise = (text: string) => text.replaceAll("DIALOGUE>>>", "DIALOGUE> > >").replaceAll("<<<DIALOGUE", "< < <DIALOGUE");
  const turns = history.map((turn) => ({ speaker: turn.role === "user" ? "you" : "listener", text: neutralise(turn.content) }));
  if (agentReply !== undefined) turns.push({ speaker: "listener", text: neutralise(agentReply) });
  return JSON.stringify(turns, null, 1);
}

function formatPersona(scenario: Scenario): string {
  const { description, ...facts } = scenario.persona;
  const lines = Object.entries(facts).map(([key, value]) => `- ${key}: ${value}`);
  return [description, ...lines].join("\n");
}

function formatRubric(rubric: readonly RubricItem[], language: string): string {
  const phase = (item: RubricItem) => (item.phase === "any" ? "" : language === "zh" ? (item.phase === "before" ? "（转变之前）" : "（转变之后）") : ` (${item.phase} the shift)`);
  const amount = (item: RubricItem) => (typeof item.delta === "number" ? `${item.delta > 0 ? "+" : ""}${item.delta}` : `${item.delta[0]} to ${item.delta[1]}`);
  return rubric.map((item) => `- ${item.description}${phase(item)}: ${amount(item)}`).join("\n");
}

/** The parts of the simulator's prompt that depend on the scenario alone. */
interface ScenarioPromptParts {
  persona: string;
  traitDescription: string;
  rubric: string;
}

/** Formatted once per scenario: the same text goes into every simulator call of every dialogue. */
const scenarioPromptParts = new WeakMap<Scenario, ScenarioPromptParts>();

function partsOf(scenario: Scenario): ScenarioPromptParts {
  let parts = scenarioPromptParts.get(scenario);
  if (parts === undefined) {
    parts = {
      persona: formatPersona(scenario),
      traitDescription: `${loadTypeDefaults()[scenario.type].summary} ${scenario.trait.description}`,
      rubric: formatRubric(rubricOf(scenario), scenario.language),
    };
    scenarioPromptParts.set(scenario, parts);
  }
  return parts;
}

function promptValues(input: AppraisalInput, emotion: number): Record<string, string | number> {
  const { scenario, preset } = input;
  const strings = loadPromptStrings(scenario.language);
  const state = emotionState(emotion);
  const scriptLine = scenario.trait.script[input.turnIndex];
  const parts = partsOf(scenario);
  return {
    persona: parts.persona,
    background: scenario.background,
    topic: scenario.topic,
    hiddenIntention: scenario.hiddenIntention.text,
    type: scenario.type,
    traitDescription: parts.traitDescription,
    rubric: parts.rubric,
    turn: input.turnIndex + 1,
    maxTurns: preset.maxTurns,
    emotion,
    state,
    stateDescription: strings.states[state],
    phaseNote: input.turnIndex < input.manipulationTurn ? strings.phaseBefore : strings.phaseAfter,
    dialogue: dialogueAsData(input.history, input.agentReply),
    scriptLine: scriptLine === undefined ? "—" : `${strings.scriptLinePrefix} "${scriptLine}"`,
    language: strings.language,
  };
}
