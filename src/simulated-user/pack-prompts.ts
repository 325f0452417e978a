/**
 * The values of a prompt pack's placeholders (src/prompts/prompt-pack.ts lists them) for one call
 * of the simulated user, and the rendered messages. Values are computed only for the placeholders
 * a template uses; the parts that depend on the scenario alone are formatted once per scenario.
 */
import type { ChatTurn } from "../core/dialogue.js";
import { emotionState, type EmotionState } from "../core/emotion.js";
import { ConfigError } from "../core/errors.js";
import type { ChatMessage } from "../llm/chat-model.js";
import { fillPrompt } from "../prompts/prompt-templates.js";
import type { PackLanguage, PlaceholderName, PromptPack, StageName, StageTemplates } from "../prompts/prompt-pack.js";
import type { RubricItem, Scenario } from "../scenarios/scenario-schema.js";
import { loadTypeDefaults, rubricOf } from "../scenarios/type-defaults.js";
import type { AppraisalInput } from "./simulated-user.js";

/**
 * The last rendering per history array: a two-stage turn renders the same conversation for the
 * analyst and then the actor (the step hands both the same array), so the second is a lookup. The
 * length and the reply are checked too, so an array changed in place is rendered afresh.
 */
const renderedDialogues = new WeakMap<readonly ChatTurn[], { length: number; agentReply: string | undefined; text: string }>();

/** The conversation as JSON data: agent text can never close the block or pose as the user. */
export function dialogueAsData(history: readonly ChatTurn[], agentReply: string | undefined): string {
  const last = renderedDialogues.get(history);
  if (last !== undefined && last.length === history.length && last.agentReply === agentReply) return last.text;
  const text = turnsAsData(agentReply === undefined ? history : [...history, { role: "assistant", content: agentReply }]);
  renderedDialogues.set(history, { length: history.length, agentReply, text });
  return text;
}

/** The project's format: `[{speaker: "you" | "listener", text}]`, the block markers neutralised. */
function turnsAsData(turns: readonly ChatTurn[]): string {
  const neutralise = (text: string) => text.replaceAll("DIALOGUE>>>", "DIALOGUE> > >").replaceAll("<<<DIALOGUE", "< < <DIALOGUE");
  return JSON.stringify(
    turns.map((turn) => ({ speaker: turn.role === "user" ? "you" : "listener", text: neutralise(turn.content) })),
    null,
    1,
  );
}

/**
 * SAGE's format: a JSON list of `{role, content}` with the pack's speaker labels, indented by two
 * (Python's `json.dumps(..., ensure_ascii=False, indent=2)` writes the same text). JSON string
 * escaping keeps agent text inside its string.
 */
function turnsAsSageData(turns: readonly ChatTurn[], speakers: { user: string; agent: string }): string {
  return JSON.stringify(
    turns.map((turn) => ({ role: turn.role === "user" ? speakers.user : speakers.agent, content: turn.content })),
    null,
    2,
  );
}

function formatPersona(scenario: Scenario): string {
  const { description, ...facts } = scenario.persona;
  const lines = Object.entries(facts).map(([key, value]) => `- ${key}: ${value}`);
  return [description, ...lines].join("\n");
}

function formatRubric(rubric: readonly RubricItem[], language: string): string {
  const phase = (item: RubricItem) =>
    item.phase === "any"
      ? ""
      : language === "zh"
        ? item.phase === "before"
          ? "（转变之前）"
          : "（转变之后）"
        : ` (${item.phase} the shift)`;
  const amount = (item: RubricItem) =>
    typeof item.delta === "number" ? `${item.delta > 0 ? "+" : ""}${item.delta}` : `${item.delta[0]} to ${item.delta[1]}`;
  return rubric.map((item) => `- ${item.description}${phase(item)}: ${amount(item)}`).join("\n");
}

/** The trait's script, one numbered line per turn, so a prompt can state it before the conversation. */
function formatScript(script: readonly string[]): string {
  return script.length === 0 ? "—" : script.map((line, index) => `${index + 1}. "${line}"`).join("\n");
}

/** The emotion range of each state, read off emotionState itself (so the two never disagree). */
const STATE_RANGES: ReadonlyArray<{ state: EmotionState; from: number; to: number }> = (() => {
  const ranges: Array<{ state: EmotionState; from: number; to: number }> = [];
  for (let emotion = 100; emotion >= 0; emotion -= 1) {
    const state = emotionState(emotion);
    const last = ranges.at(-1);
    if (last?.state === state) last.from = emotion;
    else ranges.push({ state, from: emotion, to: emotion });
  }
  return ranges;
})();

function formatStateScale(states: Readonly<Record<string, string>>): string {
  return STATE_RANGES.map(({ state, from, to }) => `- ${state} (${from === to ? from : `${from}-${to}`}): ${states[state] ?? state}`).join(
    "\n",
  );
}

/** The parts of the simulator's prompt that depend on the scenario alone. */
interface ScenarioPromptParts {
  persona: string;
  traitDescription: string;
  rubric: string;
  script: string;
}

/** Formatted once per scenario: the same text goes into every simulator call of every dialogue. */
const scenarioPromptParts = new WeakMap<Scenario, ScenarioPromptParts>();

export function partsOf(scenario: Scenario): ScenarioPromptParts {
  let parts = scenarioPromptParts.get(scenario);
  if (parts === undefined) {
    parts = {
      persona: formatPersona(scenario),
      traitDescription: `${loadTypeDefaults()[scenario.type].summary} ${scenario.trait.description}`,
      rubric: formatRubric(rubricOf(scenario), scenario.language),
      script: formatScript(scenario.trait.script),
    };
    scenarioPromptParts.set(scenario, parts);
  }
  return parts;
}

/** The pack's trait text for a scenario's type, or an error naming the pack, the type and the file. */
export function packTrait(pack: PromptPack, language: PackLanguage, scenario: Scenario): string {
  const trait = language.traits?.[scenario.type];
  if (trait === undefined) {
    throw new ConfigError(
      `prompt pack ${pack.name} has no trait text for type "${scenario.type}" in ${pack.dir}/${language.language}/traits.yaml (scenario ${scenario.id})`,
    );
  }
  return trait;
}

/** One call's inputs: the appraisal input, the emotion the prompt states, the accepted change range. */
export interface PromptCall {
  stage: StageName;
  pack: PromptPack;
  language: PackLanguage;
  input: AppraisalInput;
  /** Before the change for the analyst, after it (adjusted and clamped) for the actor. */
  emotion: number;
  /** The range the prompt states (min, max), and the bound an answer must keep (null: none). */
  range: { min: number; max: number; bound: number | null };
  /** The analyst's output, for the actor's {{appraisal.<field>}} placeholders. */
  appraisal?: Readonly<Record<string, unknown>>;
}

type ValueOf = (call: PromptCall) => string | number;

const fullHistory = ({ input }: PromptCall): ChatTurn[] => [...input.history, { role: "assistant", content: input.agentReply }];

function dialogueText(call: PromptCall, turns: readonly ChatTurn[]): string {
  const { manifest } = call.pack;
  const { strings } = call.language;
  if (manifest.dialogueStyle === "aeb") return turnsAsData(turns);
  const speakers = call.stage === "actor" ? (strings.actorSpeakers ?? strings.speakers) : strings.speakers;
  return turnsAsSageData(turns, speakers as { user: string; agent: string });
}

/** How each placeholder is filled. Keys are exactly prompt-pack.ts's PLACEHOLDERS. */
const VALUES: Record<PlaceholderName, ValueOf> = {
  persona: ({ input }) => partsOf(input.scenario).persona,
  // SAGE/RLVER profiles (the cooperative type) carry the source's persona text verbatim in the description.
  character: ({ input }) => (input.scenario.type === "cooperative" ? input.scenario.persona.description : partsOf(input.scenario).persona),
  background: ({ input }) => input.scenario.background,
  scene: ({ input, language }) => {
    const { background, hiddenIntention } = input.scenario;
    return background.includes(hiddenIntention.text)
      ? background
      : `${background.trimEnd()}\n\n${language.strings.hiddenIntentionLabel}: ${hiddenIntention.text}`;
  },
  topic: ({ input }) => input.scenario.topic,
  hiddenIntention: ({ input }) => input.scenario.hiddenIntention.text,
  type: ({ input }) => input.scenario.type,
  traitDescription: ({ input }) => partsOf(input.scenario).traitDescription,
  trait: ({ pack, language, input }) => packTrait(pack, language, input.scenario),
  rubric: ({ input }) => partsOf(input.scenario).rubric,
  scriptLine: ({ input, language }) => {
    const line = input.scenario.trait.script[input.turnIndex];
    return line === undefined ? "—" : `${language.strings.scriptLinePrefix} "${line}"`;
  },
  script: ({ input }) => partsOf(input.scenario).script,
  shiftTurn: ({ input }) => input.manipulationTurn + 1,
  turn: ({ input }) => input.turnIndex + 1,
  maxTurns: ({ input }) => input.preset.maxTurns,
  emotion: ({ emotion }) => emotion,
  state: ({ emotion }) => emotionState(emotion),
  stateDescription: ({ emotion, language }) => (language.strings.states as Record<string, string>)[emotionState(emotion)] as string,
  stateScale: ({ language }) => formatStateScale(language.strings.states as Record<string, string>),
  phaseNote: ({ input, language }) =>
    (input.turnIndex < input.manipulationTurn ? language.strings.phaseBefore : language.strings.phaseAfter) as string,
  dialogue: (call) =>
    call.pack.manifest.dialogueStyle === "aeb"
      ? dialogueAsData(call.input.history, call.input.agentReply)
      : dialogueText(call, fullHistory(call)),
  context: (call) => {
    const earlier = fullHistory(call).slice(0, -2);
    return earlier.length === 0 && call.language.strings.emptyContext !== undefined
      ? call.language.strings.emptyContext
      : dialogueText(call, earlier);
  },
  latest: (call) => dialogueText(call, fullHistory(call).slice(-2)),
  minChange: ({ range }) => range.min,
  maxChange: ({ range }) => range.max,
  language: ({ language }) => language.strings.language,
};

function appraisalValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join("; ");
  return value === undefined || value === null ? "" : String(value);
}

/** The values of the placeholders a stage's templates use. */
export function stageValues(stage: StageTemplates, call: PromptCall): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const placeholder of stage.placeholders) {
    if (placeholder.startsWith("appraisal."))
      values[placeholder] = appraisalValue(call.appraisal?.[placeholder.slice("appraisal.".length)]);
    else values[placeholder] = VALUES[placeholder as PlaceholderName](call);
  }
  return values;
}

/**
 * A tagged pack's messages: the optional system template, then the main template as the user's
 * message (SAGE and RLVER send their whole prompt as one user message; the AEB paper adds a short
 * system message).
 */
export function taggedMessages(stage: StageTemplates, call: PromptCall): ChatMessage[] {
  const values = stageValues(stage, call);
  return [
    ...(stage.system !== undefined ? [{ role: "system" as const, content: fillPrompt(stage.system, values) }] : []),
    { role: "user", content: fillPrompt(stage.template, values) },
  ];
}
