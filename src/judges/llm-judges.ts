import { z } from "zod";
import type { ChatTurn } from "../core/dialogue.js";
import type { ChatMessage, ChatModel } from "../llm/chat-model.js";
import { fillPrompt, loadPromptTemplate } from "../prompts/prompt-templates.js";
import { parseModelJson } from "../simulated-user/json-output.js";
import type { Language } from "../lexicon/lexicon.js";
import type { EcsEstimate, EcsJudge, EcsJudgeInput, HidJudge, HidJudgeInput, HidJudgement } from "./judge.js";

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

/** Raised when a judge's output is still unusable after its retries. */
export class JudgeOutputError extends Error {
  override readonly name = "JudgeOutputError";
}

/** The conversation as numbered JSON data (listener turns numbered from 0). */
export function numberedDialogue(visible: readonly ChatTurn[]): string {
  let listenerTurn = 0;
  const turns = visible.map((turn) =>
    turn.role === "user" ? { speaker: "person", text: turn.content } : { speaker: "listener", turn: listenerTurn++, text: turn.content },
  );
  return JSON.stringify(turns, null, 1).replaceAll("DIALOGUE>>>", "DIALOGUE> > >");
}

async function askJson<T>(model: ChatModel, prompt: string, schema: z.ZodType<T>, name: string, sampleKey: string, retries: number, language: Language, signal?: AbortSignal, extraCheck: (value: T) => string | null = () => null): Promise<T> {
  const messages: ChatMessage[] = [
    { role: "system", content: prompt },
    { role: "user", content: language === "zh" ? "请只输出 JSON 对象。" : "Answer with the JSON object only." },
  ];
  let lastError = "";
  for (let attempt = 0; attempt <= retries; attempt += 1) {
    const response = await model.complete({ messages, temperature: 0, jsonSchema: { name, schema: z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown> }, sampleKey: `${sampleKey}#try${attempt}`, signal });
    const parsed = parseModelJson(response.text, schema);
    const problem = parsed.ok ? extraCheck(parsed.value) : parsed.error;
    if (parsed.ok && problem === null) return parsed.value;
    lastError = problem ?? "unusable answer";
    messages.push({ role: "assistant", content: response.text }, { role: "user", content: `Your answer could not be used: ${lastError}\nAnswer again with only the JSON object.` });
  }
  throw new JudgeOutputError(`${name} output unusable after ${retries + 1} tries: ${lastError}`);
}

/** The LLM ECS judge of spec section 4: visible conversation only, one estimate per agent reply. */
export class LlmEcsJudge implements EcsJudge {
  readonly id: string;
  readonly model: string;

  constructor(
    private readonly chat: ChatModel,
    private readonly retries = 2,
  ) {
    this.model = chat.id;
    this.id = `llm-ecs:${chat.id}`;
  }

  async estimate(input: EcsJudgeInput): Promise<EcsEstimate> {
    const prompt = fillPrompt(loadPromptTemplate(input.language, "judge-ecs"), { dialogue: numberedDialogue(input.visible) });
    const output = await askJson(this.chat, prompt, EcsOutputSchema, "aeb_ecs_judge", `${input.dialogueId}#turn${input.turnIndex}#ecs`, this.retries, input.language, input.signal);
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
    const prompt = fillPrompt(loadPromptTemplate(input.language, "judge-hid"), { dialogue: numberedDialogue(input.visible), hiddenIntention: input.hiddenIntention });
    const listenerTurns = input.visible.filter((turn) => turn.role === "assistant").length;
    const output = await askJson(this.chat, prompt, HidOutputSchema, "aeb_hid_judge", `${input.dialogueId}#hid`, this.retries, input.language, input.signal, (value) =>
      value.verdict !== "no" && (value.turn === null || value.turn >= listenerTurns) ? `"turn" must name a listener turn from 0 to ${listenerTurns - 1}` : null,
    );
    return { verdict: output.verdict, turn: output.turn, evidence: output.evidence, reasoning: output.reasoning };
  }
}
