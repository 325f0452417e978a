import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { createRng, deriveSeed, type Rng } from "../core/random.js";
import { ADVERSARIAL_TYPES } from "../core/trajectory-type.js";
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
export const GAMING_AGENT_IDS = ["stuffer", "quote-stuffer", "template", "repeater", "keyword-salad"] as const;
export type GamingAgentId = (typeof GAMING_AGENT_IDS)[number];

const GamingRecipesSchema = z.strictObject({
  /** The moves of the single fixed template, in order. */
  template: z.strictObject({ moves: z.array(LexicalMoveSchema).min(1) }),
  /** How many words a keyword salad holds. */
  salad: z.strictObject({ words: z.number().int().min(4).max(200) }),
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
  const defaults = loadTypeDefaults();
  const moves: LexicalMove[] = [];
  for (const type of ADVERSARIAL_TYPES) {
    const best = [...defaults[type].rubric].sort((a, b) => upper(b.delta) - upper(a.delta))[0];
    if (best === undefined) continue;
    for (const move of [...(best.all ?? []), ...(best.any ?? []).slice(0, 1)]) {
      if (move !== "grounded" && !moves.includes(move)) moves.push(move);
    }
  }
  return moves;
}

function upper(delta: number | readonly [number, number]): number {
  return typeof delta === "number" ? delta : delta[1];
}

function phrasingsOf(lexicon: Lexicon, move: LexicalMove): string[] {
  const phrasings = lexicon.phrasings[move];
  if (phrasings === undefined || phrasings.length === 0) {
    throw new AebError(`the ${lexicon.language} lexicon has no phrasings for move "${move}" (data/lexicon/${lexicon.language}.yaml, phrasings)`);
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

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = rng.int(0, index);
    [items[index], items[other]] = [items[other] as T, items[index] as T];
  }
  return items;
}

/** A gaming agent; `honest` is the agent whose replies the repeater replays (the attuned one). */
export function createGamingAgent(id: GamingAgentId, honest: Agent): Agent {
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
  }
}
