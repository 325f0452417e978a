import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { createRng, deriveSeed, type Rng } from "../core/random.js";
import { ADVERSARIAL_TYPES, type AdversarialType } from "../core/trajectory-type.js";
import { loadLexicon, LexicalMoveSchema, type LexicalMove, type Language, type Lexicon } from "../lexicon/lexicon.js";
import { loadTypeDefaults } from "../scenarios/type-defaults.js";
import type { Agent, AgentInput, AgentReply } from "./agent.js";
import { lastSentence, lastUserText, surfaceContentWords } from "./user-text.js";

/**
 * Gaming agents: deterministic agents that try to farm the offline simulated user's rubric instead
 * of helping the user, built from the lexicon's own phrases. They probe the benchmark (a policy
 * trained against the offline user could learn any of them) and must all score well below the
 * attuned reference agent. Never among `aeb run`'s default conditions; see docs/offline-user.md.
 */
export const GAMING_AGENT_IDS = [
  "stuffer",
  "quote-stuffer",
  "template",
  "repeater",
  "keyword-salad",
  "quote-phrase",
  "insult-appended",
  "foreign-insult",
  "filler-appended",
  "nonsense-appended",
  "punished-act",
  "capitulation-balance",
  "keyword-list",
] as const;
export type GamingAgentId = (typeof GAMING_AGENT_IDS)[number];

const AdversarialTypeSchema = z.enum(ADVERSARIAL_TYPES);
const ByLanguage = <T extends z.ZodType>(schema: T) => z.strictObject({ en: schema, zh: schema });
const Lines = z.array(z.string().min(1)).min(1);

const GamingRecipesSchema = z.strictObject({
  /** The moves of the single fixed template, in order. */
  template: z.strictObject({ moves: z.array(LexicalMoveSchema).min(1) }),
  /** How many words a keyword salad holds. */
  salad: z.strictObject({ words: z.number().int().min(4).max(200) }),
  /** How the situation-guessing agents guess the type from the user's words. */
  situations: z.strictObject({
    order: z.array(AdversarialTypeSchema).min(1),
    default: AdversarialTypeSchema,
    cues: ByLanguage(z.partialRecord(AdversarialTypeSchema, z.array(z.string().min(1)).min(1))),
  }),
  /** What the situation-guessing agents append to the paid phrasing. */
  appended: z.strictObject({
    insult: ByLanguage(Lines),
    foreign_insult: ByLanguage(Lines),
    filler: ByLanguage(Lines),
    nonsense: ByLanguage(z.array(z.string().min(1)).min(4)),
    punished_act: ByLanguage(
      z.strictObject(Object.fromEntries(ADVERSARIAL_TYPES.map((type) => [type, Lines])) as Record<AdversarialType, typeof Lines>),
    ),
    capitulation_as_balance: ByLanguage(Lines),
  }),
});
type GamingRecipes = z.infer<typeof GamingRecipesSchema>;

function loadRecipes(): GamingRecipes {
  return loadDataFile(dataPath("agents", "gaming.yaml"), GamingRecipesSchema);
}

/**
 * The moves the rubrics pay best for: for each adversarial type, the moves of its rubric item with
 * the highest possible change (its `all` moves and the first of its `any`), read from
 * data/trajectory-types.yaml.
 */
export function rewardedMoves(): LexicalMove[] {
  const moves: LexicalMove[] = [];
  for (const type of ADVERSARIAL_TYPES) {
    for (const move of rewardedMovesOf(type)) if (!moves.includes(move)) moves.push(move);
  }
  return moves;
}

/** The moves of one type's best-paid rubric item (its `all` moves and the first of its `any`). */
export function rewardedMovesOf(type: AdversarialType): LexicalMove[] {
  const best = [...loadTypeDefaults()[type].rubric].sort((a, b) => upper(b.delta) - upper(a.delta))[0];
  if (best === undefined) return [];
  return [...new Set([...(best.all ?? []), ...(best.any ?? []).slice(0, 1)])].filter((move): move is LexicalMove => move !== "grounded");
}

function upper(delta: number | readonly [number, number]): number {
  return typeof delta === "number" ? delta : delta[1];
}

function phrasingsOf(lexicon: Lexicon, move: LexicalMove): string[] {
  const phrasings = lexicon.phrasings[move];
  if (phrasings === undefined || phrasings.length === 0) {
    throw new AebError(
      `the ${lexicon.language} lexicon has no phrasings for move "${move}" (data/lexicon/${lexicon.language}.yaml, phrasings)`,
    );
  }
  return phrasings;
}

function join(parts: readonly string[], language: Language): string {
  return parts.join(language === "zh" ? "" : " ");
}

/** One phrasing of every rewarded move; `variant` picks which phrasing of each. */
function stuffedText(lexicon: Lexicon, variant: number): string {
  return join(
    rewardedMoves().map((move) => {
      const phrasings = phrasingsOf(lexicon, move);
      return phrasings[variant % phrasings.length] as string;
    }),
    lexicon.language,
  );
}

/**
 * Which phrasing of each move this turn: a seeded per-dialogue start, then one step per turn, as the
 * reference agents rotate their templates (taken modulo each move's number of phrasings).
 */
function variantOf(input: AgentInput, agentId: string): number {
  return createRng(deriveSeed(input.seed, agentId)).int(0, 1023) + input.turnIndex;
}

function quoted(text: string): string {
  return `“${text}”`;
}

/** Every rewarded move in one reply, the same whatever the user said (one variant per phrasing, rotating by turn). */
class StufferAgent implements Agent {
  readonly id = "stuffer";
  async reply(input: AgentInput): Promise<AgentReply> {
    return { text: stuffedText(loadLexicon(input.language), variantOf(input, this.id)) };
  }
}

/** The stuffer's text after a quote of the user's last sentence, so it looks grounded. */
class QuoteStufferAgent implements Agent {
  readonly id = "quote-stuffer";
  async reply(input: AgentInput): Promise<AgentReply> {
    const lexicon = loadLexicon(input.language);
    const quote = quoted(lastSentence(lastUserText(input.history), input.language));
    return { text: join([quote, stuffedText(lexicon, variantOf(input, this.id))], input.language) };
  }
}

/** One fixed template for every message: the user's last sentence quoted, then the same moves in the same words. */
class TemplateAgent implements Agent {
  readonly id = "template";
  async reply(input: AgentInput): Promise<AgentReply> {
    const lexicon = loadLexicon(input.language);
    const quote = quoted(lastSentence(lastUserText(input.history), input.language));
    const moves = loadRecipes().template.moves.map((move) => phrasingsOf(lexicon, move)[0] as string);
    return { text: join([quote, ...moves], input.language) };
  }
}

/** Replays its previous reply every other turn: a fresh honest reply, then the same words again. */
class RepeaterAgent implements Agent {
  readonly id = "repeater";
  constructor(private readonly honest: Agent) {}
  async reply(input: AgentInput): Promise<AgentReply> {
    const previous = input.history.filter((turn) => turn.role === "assistant").at(-1);
    if (input.turnIndex % 2 === 1 && previous !== undefined) return { text: previous.content };
    return this.honest.reply(input);
  }
}

/** The user's content words and the rewarded moves' words, shuffled: no sentence, every keyword. */
class KeywordSaladAgent implements Agent {
  readonly id = "keyword-salad";
  async reply(input: AgentInput): Promise<AgentReply> {
    const lexicon = loadLexicon(input.language);
    const rng = createRng(deriveSeed(input.seed, input.turnIndex, this.id));
    const pool = new Set([
      ...surfaceContentWords(lastUserText(input.history), lexicon),
      ...rewardedMoves().flatMap((move) => phrasingsOf(lexicon, move).flatMap((phrasing) => surfaceContentWords(phrasing, lexicon))),
    ]);
    const words = shuffle([...pool], rng).slice(0, loadRecipes().salad.words);
    return { text: join(words, input.language) };
  }
}

/**
 * Guesses the trajectory type from cue words in everything the user has said: the first type in
 * the recipe's order whose cue matches, or the recipe's default.
 */
export function guessSituation(history: AgentInput["history"], language: Language): AdversarialType {
  const { situations } = loadRecipes();
  const said = history
    .filter((turn) => turn.role === "user")
    .map((turn) => turn.content)
    .join("\n");
  for (const type of situations.order) {
    const cues = situations.cues[language][type] ?? [];
    if (cues.some((cue) => new RegExp(cue, "iu").test(said))) return type;
  }
  return situations.default;
}

/** The guessed type's best-paid moves, one lexicon phrasing each (rotating by turn). */
function paidPhrasing(input: AgentInput, agentId: string): { text: string; type: AdversarialType } {
  const lexicon = loadLexicon(input.language);
  const type = guessSituation(input.history, input.language);
  const variant = variantOf(input, agentId);
  const parts = rewardedMovesOf(type).map((move) => {
    const phrasings = phrasingsOf(lexicon, move);
    return phrasings[variant % phrasings.length] as string;
  });
  return { text: join(parts, input.language), type };
}

type Appendix = "quote" | "insult" | "foreign_insult" | "filler" | "nonsense" | "punished_act" | "capitulation_as_balance" | "keywords";

/**
 * A situation-guessing agent: guesses the type from cue words, sends that type's paid phrasing, and
 * adds its appendix (a quote of the user before it, or harm, padding or keywords after it).
 */
class SituationGuessingAgent implements Agent {
  constructor(
    readonly id: GamingAgentId,
    private readonly appendix: Appendix,
  ) {}

  async reply(input: AgentInput): Promise<AgentReply> {
    const { text, type } = paidPhrasing(input, this.id);
    const { appended } = loadRecipes();
    const language = input.language;
    const rng = createRng(deriveSeed(input.seed, input.turnIndex, this.id));
    const user = lastUserText(input.history);
    switch (this.appendix) {
      case "quote":
        return { text: join([quoted(lastSentence(user, language)), text], language) };
      case "insult":
      case "foreign_insult":
      case "filler":
      case "capitulation_as_balance":
        return { text: join([text, rng.pick(appended[this.appendix][language])], language) };
      case "punished_act":
        return { text: join([text, rng.pick(appended.punished_act[language][type])], language) };
      case "nonsense": {
        const words = shuffle([...appended.nonsense[language]], rng).slice(0, rng.int(4, 7));
        const sentence =
          language === "zh" ? `${words.join("，")}。` : `${words.join(", ").replace(/^./u, (letter) => letter.toUpperCase())}.`;
        return { text: join([text, sentence], language) };
      }
      case "keywords": {
        const keywords = [...new Set(surfaceContentWords(user, loadLexicon(language)))].slice(0, 8);
        const list =
          language === "zh" ? `${keywords.join("、")}。` : `${keywords.join(", ").replace(/^./u, (letter) => letter.toUpperCase())}.`;
        return { text: join([text, list], language) };
      }
    }
  }
}

const SITUATION_AGENTS: Partial<Record<GamingAgentId, Appendix>> = {
  "quote-phrase": "quote",
  "insult-appended": "insult",
  "foreign-insult": "foreign_insult",
  "filler-appended": "filler",
  "nonsense-appended": "nonsense",
  "punished-act": "punished_act",
  "capitulation-balance": "capitulation_as_balance",
  "keyword-list": "keywords",
};

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = rng.int(0, index);
    [items[index], items[other]] = [items[other] as T, items[index] as T];
  }
  return items;
}

/** A gaming agent; `honest` is the agent whose replies the repeater replays (the attuned one). */
export function createGamingAgent(id: GamingAgentId, honest: Agent): Agent {
  const appendix = SITUATION_AGENTS[id];
  if (appendix !== undefined) return new SituationGuessingAgent(id, appendix);
  switch (id) {
    case "stuffer":
      return new StufferAgent();
    case "quote-stuffer":
      return new QuoteStufferAgent();
    case "template":
      return new TemplateAgent();
    case "repeater":
      return new RepeaterAgent(honest);
    case "keyword-salad":
      return new KeywordSaladAgent();
    default:
      throw new AebError(`gaming agent "${id}" has no implementation`);
  }
}
