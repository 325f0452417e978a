import { z } from "zod";
import { emotionState } from "../core/emotion.js";
import { ConfigError } from "../core/errors.js";
import type { Preset } from "../core/preset.js";
import { deriveSeed } from "../core/random.js";
import type { ChatModel } from "../llm/chat-model.js";
import { askForJson, askWithCorrection, StructuredOutputError, type ParsedAnswer } from "../llm/structured-output.js";
import {
  defaultPackFor,
  loadPromptPack,
  packLanguage,
  type PackLanguage,
  type PromptPack,
  type PromptPackRef,
  type StageTemplates,
} from "../prompts/prompt-pack.js";
import { fillPrompt, loadPromptTemplate } from "../prompts/prompt-templates.js";
import type { Language } from "../lexicon/lexicon.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { packTrait, partsOf, stageValues, taggedMessages, type PromptCall } from "./pack-prompts.js";
import { personaFlags } from "./persona-check.js";
import {
  SimulatedUserError,
  type Appraisal,
  type AppraisalInput,
  type OpeningInput,
  type ReplyInput,
  type SimulatedUser,
  type UserReply,
} from "./simulated-user.js";
import { normaliseTargetCompletion, readChange, readTaggedSections } from "./tagged-output.js";

export { dialogueAsData } from "./pack-prompts.js";

/**
 * The range the project's JSON prompts state when the preset neither bounds nor clamps the change
 * (rlver): the whole emotion scale, the largest move that means anything on 0-100. It is not
 * enforced; only the preset's `simulatorChangeBound` is.
 */
export const EMOTION_SCALE_SPAN = 100;

const IntegerLike = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^[+-−]?\d+$/u)
      .transform((text) => Number(text.replace("−", "-"))),
  ])
  .pipe(z.number().int());

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
  /** One call per turn for appraisal and reply together (cheaper; the reply cannot see the clamped emotion). Needs a pack with a fused template. */
  fused: boolean;
  /** Unusable outputs are sent back with the error this many times before the dialogue ends as `error`. */
  maxOutputRetries: number;
  /** Overrides the pack's sampling temperature. */
  temperature?: number;
  /** Overrides the pack's token limit. */
  maxTokens?: number;
  /** The prompt pack; without one, each scenario gets the pack of its preset (see defaultPackFor). */
  promptPack?: PromptPackRef;
}

/**
 * SAGE's simulated user on an LLM, two stages per turn: an analyst that appraises the agent's reply
 * (what it meant, how it landed, a signed change), then an actor that replies in persona knowing
 * its new emotion. The prompts come from a prompt pack (src/prompts/prompt-pack.ts): the project's
 * structured JSON prompts (`aeb-json`), or free-text packs that follow SAGE, RLVER or the AEB paper
 * and are read as tagged sections with the same rigour: an answer that cannot be read, or whose
 * change is missing or out of range, is sent back with the error and then ends the dialogue as
 * `error`, never a default. Agent text reaches the model only inside JSON data.
 */
export class LlmSimulatedUser implements SimulatedUser {
  readonly id: string;
  /** The configured pack, loaded and checked at construction (before any model call). */
  private readonly configuredPack: PromptPack | undefined;

  constructor(
    private readonly model: ChatModel,
    private readonly options: LlmUserOptions,
  ) {
    this.id = `llm:${model.id}${options.fused ? ":fused" : ""}`;
    this.configuredPack = options.promptPack === undefined ? undefined : loadPromptPack(options.promptPack);
    if (this.configuredPack !== undefined) this.checkFused(this.configuredPack);
  }

  /** The pack a scenario's dialogues use. */
  packFor(scenario: Scenario): PromptPack {
    return this.configuredPack ?? loadPromptPack(defaultPackFor(scenario.preset));
  }

  /**
   * Checks, before any model call, that every scenario can be played with its pack: the pack has
   * the scenario's language, a trait text for its type where the templates use {{trait}}, and a
   * fused template when `fused` is on. The first problems are reported together.
   */
  checkScenarios(scenarios: readonly Scenario[]): void {
    const problems = new Set<string>();
    for (const scenario of scenarios) {
      try {
        const pack = this.packFor(scenario);
        this.checkFused(pack);
        const language = packLanguage(pack, scenario.language);
        const stages = [language.analyst, language.actor, ...(language.fused ? [language.fused] : [])];
        if (stages.some((stage) => stage.placeholders.includes("trait"))) packTrait(pack, language, scenario);
      } catch (error) {
        if (!ConfigError.isInstance(error)) throw error;
        problems.add(error.message);
      }
    }
    if (problems.size > 0) {
      const listed = [...problems].slice(0, 5);
      throw new ConfigError(
        `the simulator's prompt pack cannot play these scenarios:\n${listed.map((problem) => `  - ${problem}`).join("\n")}${problems.size > listed.length ? `\n  (${problems.size - listed.length} more)` : ""}`,
      );
    }
  }

  private checkFused(pack: PromptPack): void {
    if (this.options.fused && (pack.manifest.format !== "json" || pack.manifest.fused === undefined)) {
      throw new ConfigError(`simulator.fused needs a prompt pack with a fused template; ${pack.name} has none (use fused: false)`);
    }
  }

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    const pack = this.packFor(input.scenario);
    this.checkFused(pack);
    const language = packLanguage(pack, input.scenario.language);
    const range = changeRange(input.preset);
    const call: PromptCall = { stage: this.options.fused ? "fused" : "analyst", pack, language, input, emotion: input.emotion, range };
    if (pack.manifest.format === "tagged") return this.appraiseTagged(pack, language, call);
    if (this.options.fused) {
      const output = await this.askJson(language.fused as StageTemplates, call, FusedOutputSchema, "fused", (value) =>
        checkRange(value.change, range),
      );
      const flags = personaFlags(output.reply, input.scenario.language);
      return {
        simulatorDelta: output.change,
        hid: output.addressedHiddenIntention,
        details: jsonAppraisalDetails(output),
        fusedReply: { text: output.reply, left: output.leave, flags },
        memory: input.memory,
      };
    }
    const output = await this.askJson(language.analyst, call, AppraisalOutputSchema, "appraisal", (value) =>
      checkRange(value.change, range),
    );
    return {
      simulatorDelta: output.change,
      hid: output.addressedHiddenIntention,
      details: jsonAppraisalDetails(output),
      memory: input.memory,
    };
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    const pack = this.packFor(input.scenario);
    const language = packLanguage(pack, input.scenario.language);
    const call: PromptCall = {
      stage: "actor",
      pack,
      language,
      input,
      emotion: input.emotionAfter,
      range: changeRange(input.preset),
      appraisal: input.appraisal.details,
    };
    if (pack.manifest.format === "tagged") {
      const { actor } = pack.manifest;
      const sections = await this.askTagged(language, language.actor, call, "reply", (text) =>
        readTaggedSections(text, actor.fields, actor.optional),
      );
      const text = sections[actor.reply] as string;
      // Free-text packs have no leave field: a goodbye ends the dialogue through the preset's end rules, as in SAGE.
      return { text, left: false, flags: personaFlags(text, input.scenario.language) };
    }
    const output = await this.askJson(language.actor, call, ReplyOutputSchema, "reply", () => null);
    return { text: output.reply, left: output.leave, flags: personaFlags(output.reply, input.scenario.language) };
  }

  private async appraiseTagged(pack: PromptPack, language: PackLanguage, call: PromptCall): Promise<Appraisal> {
    if (pack.manifest.format !== "tagged") throw new Error("appraiseTagged needs a tagged pack");
    const { analyst } = pack.manifest;
    const output = await this.askTagged(
      language,
      language.analyst,
      call,
      "appraisal",
      (text): ParsedAnswer<{ sections: Record<string, string>; change: number }> => {
        const sections = readTaggedSections(text, analyst.fields, analyst.optional);
        if (!sections.ok) return sections;
        const change = readChange(sections.value[analyst.change] as string, analyst.change);
        return change.ok ? { ok: true, value: { sections: sections.value, change: change.value } } : change;
      },
      (value) => checkRange(value.change, call.range),
    );
    const hid = analyst.hid === undefined ? undefined : normaliseTargetCompletion(output.sections[analyst.hid.field] ?? "");
    return {
      simulatorDelta: output.change,
      ...(hid !== undefined ? { hid } : {}),
      // The raw sections are kept (the paper's TargetCompletion text among them), beside the number read from them.
      details: {
        pack: pack.name,
        ...output.sections,
        change: output.change,
        ...(hid !== undefined ? { hidFrom: analyst.hid?.field } : {}),
      },
      memory: call.input.memory,
    };
  }

  /**
   * The first message of a scenario that has none (SAGE/RLVER profiles without `first_talk`),
   * written in persona from the scenario, as RLVER's simulator writes it. The same seed for every
   * condition, so a server that honours seeds opens each scenario and repeat the same way for all.
   */
  async open(input: OpeningInput): Promise<string> {
    // The opening template is the project's own (prompts/<language>/), so it speaks with the project's words.
    const strings = packLanguage(loadPromptPack("aeb-json"), input.scenario.language).strings;
    const state = emotionState(input.emotion);
    const values = {
      persona: partsOf(input.scenario).persona,
      background: input.scenario.background,
      hiddenIntention: input.scenario.hiddenIntention.text,
      emotion: input.emotion,
      state,
      stateDescription: strings.states?.[state] ?? state,
      language: strings.language,
    };
    const pack = this.packFor(input.scenario);
    const output = await this.unusableAsUserError("opening", () =>
      askForJson(this.model, {
        system: fillPrompt(openingTemplate(input.scenario.language), values),
        instruction: input.scenario.language === "zh" ? "请只输出 JSON 对象。" : "Answer with the JSON object only.",
        schema: OpeningOutputSchema,
        name: "aeb_simulator_opening",
        sampleKey: `${input.dialogueId}#opening#simulator-opening`,
        retries: this.options.maxOutputRetries,
        temperature: this.options.temperature ?? pack.manifest.sampling.temperature,
        maxTokens: this.options.maxTokens ?? pack.manifest.sampling.maxTokens,
        seedFor: (attempt: number) => deriveSeed(input.seed, "opening", attempt) % 2_147_483_647,
        signal: input.signal,
      }),
    );
    return output.opening;
  }

  /** One structured (JSON) call; an answer still unusable after the retries ends the dialogue as `error`. */
  private async askJson<T>(
    stage: StageTemplates,
    call: PromptCall,
    schema: z.ZodType<T>,
    stageName: string,
    check: (value: T) => string | null,
  ): Promise<T> {
    const { input } = call;
    const values = stageValues(stage, call);
    return this.unusableAsUserError(stageName, () =>
      askForJson(this.model, {
        system: fillPrompt(stage.template, values),
        // A pack's user template carries the conversation and this turn's state after a system message that stays the same all dialogue.
        instruction:
          stage.user !== undefined
            ? fillPrompt(stage.user, values)
            : input.scenario.language === "zh"
              ? "请只输出 JSON 对象。"
              : "Answer with the JSON object only.",
        schema,
        name: `aeb_simulator_${stageName}`,
        ...this.sampling(call.pack, input, stageName),
        check,
      }),
    );
  }

  /** One free-text call read as tagged sections, with the pack's corrective message on an unusable answer. */
  private async askTagged<T>(
    language: PackLanguage,
    stage: StageTemplates,
    call: PromptCall,
    stageName: string,
    read: (text: string) => ParsedAnswer<T>,
    check?: (value: T) => string | null,
  ): Promise<T> {
    return this.unusableAsUserError(stageName, () =>
      askWithCorrection(this.model, {
        messages: taggedMessages(stage, call),
        read,
        correction: (error) => fillPrompt(language.strings.correction as string, { error }),
        name: `aeb_simulator_${stageName}`,
        ...this.sampling(call.pack, call.input, stageName),
        ...(check ? { check } : {}),
      }),
    );
  }

  private sampling(pack: PromptPack, input: AppraisalInput, stageName: string) {
    return {
      sampleKey: `${input.dialogueId}#turn${input.turnIndex}#simulator-${stageName}`,
      retries: this.options.maxOutputRetries,
      temperature: this.options.temperature ?? pack.manifest.sampling.temperature,
      maxTokens: this.options.maxTokens ?? pack.manifest.sampling.maxTokens,
      seedFor: (attempt: number) => deriveSeed(input.seed, input.turnIndex, stageName, attempt) % 2_147_483_647,
      signal: input.signal,
    };
  }

  private async unusableAsUserError<T>(stageName: string, ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      if (error instanceof StructuredOutputError)
        throw new SimulatedUserError(`simulator ${stageName} output unusable after ${error.tries} tries: ${error.lastProblem}`);
      throw error;
    }
  }
}

/**
 * The opening template; one place loads it, so a prompt pack can supply its own version.
 * prompts/<language>/simulator-opening.md
 */
export function openingTemplate(language: Language): string {
  return loadPromptTemplate(language, "simulator-opening");
}

/**
 * The change an LLM simulator may propose. `bound` (the preset's simulatorChangeBound) is
 * enforced, an answer outside it being sent back; null accepts any integer, as SAGE's, RLVER's and
 * the paper's parsers do. `min` and `max` are the range the JSON prompts state: the bound, else
 * the clamp, else the whole scale.
 */
export function changeRange(preset: Preset): { min: number; max: number; bound: number | null } {
  const bound = preset.simulatorChangeBound;
  const shown = bound ?? preset.clamp ?? EMOTION_SCALE_SPAN;
  return { min: -shown, max: shown, bound };
}

function checkRange(change: number, range: { bound: number | null }): string | null {
  return range.bound !== null && Math.abs(change) > range.bound
    ? `"change" must be an integer from ${-range.bound} to ${range.bound}, got ${change}`
    : null;
}

function jsonAppraisalDetails(output: z.infer<typeof AppraisalOutputSchema>): Record<string, unknown> {
  return {
    understanding: output.understanding,
    innerReaction: output.innerReaction,
    reasons: output.reasons,
    addressedHiddenIntention: output.addressedHiddenIntention,
    change: output.change,
  };
}
