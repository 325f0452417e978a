import { z } from "zod";
import type { ChatTurn } from "../core/dialogue.js";
import type { ChatModel } from "../llm/chat-model.js";
import { askForJson } from "../llm/structured-output.js";
import { fillPrompt, loadPromptTemplate } from "../prompts/prompt-templates.js";
import type { Language } from "../lexicon/lexicon.js";
import type { EcsEstimate, EcsJudge, EcsJudgeInput, HidJudge, HidJudgeInput, HidJudgement, UnreadableTurnPolicy } from "./judge.js";

/** Rubric as schema: reasoning first, then the range-checked numbers. */
export const EcsOutputSchema = z.object({
  reasoning: z.string().default(""),
  emotion: z.number().int().min(0).max(100),
  confidence: z.number().int().min(0).max(100),
});

export const HidOutputSchema = z.object({
  reasoning: z.string().default(""),
  verdict: z.enum(["yes", "partial", "no"]),
  turn: z.number().int().min(0).nullable(),
  evidence: z.string(),
});

/** The conversation as numbered JSON data (listener turns numbered from 0). */
export function numberedDialogue(visible: readonly ChatTurn[]): string {
  let listenerTurn = 0;
  const turns = visible.map((turn) =>
    turn.role === "user" ? { speaker: "person", text: turn.content } : { speaker: "listener", turn: listenerTurn++, text: turn.content },
  );
  return JSON.stringify(turns, null, 1).replaceAll("DIALOGUE>>>", "DIALOGUE> > >");
}

const instruction = (language: Language) => (language === "zh" ? "请只输出 JSON 对象。" : "Answer with the JSON object only.");

/**
 * The ECS judge's prompts (prompts/<language>/): the project's anchors, or the AEB paper's. The
 * project's puts the task, the scale and the output format in a system message that never changes
 * and the conversation alone in the user message, so the judge calls of a dialogue, which run back
 * to back, each extend the previous one's prompt and a server's prefix cache reuses it; the
 * paper's keeps its own layout (the conversation inside its text, the question after it).
 */
export const ECS_JUDGE_PROMPTS = {
  aeb: { system: "judge-ecs", user: "judge-ecs-dialogue" },
  "aeb-paper": { system: "judge-ecs-paper", user: undefined },
} as const;
export type EcsJudgePrompt = keyof typeof ECS_JUDGE_PROMPTS;

export interface LlmEcsJudgeOptions {
  prompt: EcsJudgePrompt;
  unreadableTurn: UnreadableTurnPolicy;
  /** Default 0: a judge's estimate should not depend on sampling luck. */
  temperature?: number;
  maxTokens?: number;
}

/** The LLM ECS judge (docs/output-format.md, "Judgements"): visible conversation only, one estimate per agent reply. */
export class LlmEcsJudge implements EcsJudge {
  readonly id: string;
  readonly model: string;
  readonly unreadableTurn: UnreadableTurnPolicy;

  constructor(
    private readonly chat: ChatModel,
    private readonly retries = 2,
    private readonly options: LlmEcsJudgeOptions = { prompt: "aeb", unreadableTurn: "exclude" },
  ) {
    this.model = chat.id;
    this.unreadableTurn = options.unreadableTurn;
    this.id = `llm-ecs:${chat.id}${options.prompt === "aeb" ? "" : `:${options.prompt}`}`;
  }

  async estimate(input: EcsJudgeInput): Promise<EcsEstimate> {
    const templates = ECS_JUDGE_PROMPTS[this.options.prompt];
    const values = { dialogue: numberedDialogue(input.visible) };
    const output = await askForJson(this.chat, {
      system: fillPrompt(loadPromptTemplate(input.language, templates.system), values),
      instruction:
        templates.user === undefined ? instruction(input.language) : fillPrompt(loadPromptTemplate(input.language, templates.user), values),
      schema: EcsOutputSchema,
      name: "aeb_ecs_judge",
      sampleKey: `${input.dialogueId}#turn${input.turnIndex}#ecs`,
      retries: this.retries,
      temperature: this.options.temperature ?? 0,
      ...(this.options.maxTokens !== undefined ? { maxTokens: this.options.maxTokens } : {}),
      signal: input.signal,
    });
    return { predicted: output.emotion, confidence: output.confidence, reasoning: output.reasoning };
  }
}

/** An independent HID judge: verdict, turn and a quote that must occur in the transcript. */
export class LlmHidJudge implements HidJudge {
  readonly id: string;
  readonly model: string;

  constructor(
    private readonly chat: ChatModel,
    private readonly retries = 2,
  ) {
    this.model = chat.id;
    this.id = `llm-hid:${chat.id}`;
  }

  async judge(input: HidJudgeInput): Promise<HidJudgement> {
    const prompt = fillPrompt(loadPromptTemplate(input.language, "judge-hid"), {
      dialogue: numberedDialogue(input.visible),
      hiddenIntention: input.hiddenIntention,
    });
    const listenerTurns = input.visible.filter((turn) => turn.role === "assistant").length;
    const output = await askForJson(this.chat, {
      system: prompt,
      instruction: instruction(input.language),
      schema: HidOutputSchema,
      name: "aeb_hid_judge",
      sampleKey: `${input.dialogueId}#hid`,
      retries: this.retries,
      temperature: 0,
      check: (value) =>
        value.verdict !== "no" && (value.turn === null || value.turn >= listenerTurns)
          ? `"turn" must name a listener turn from 0 to ${listenerTurns - 1}`
          : null,
      signal: input.signal,
    });
    return { verdict: output.verdict, turn: output.turn, evidence: output.evidence, reasoning: output.reasoning };
  }
}
