import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import type { Rng } from "../core/random.js";
import { maskUserWords, USER_WORD_MARK } from "../lexicon/content-words.js";
import { withoutQuotations } from "../lexicon/detect-moves.js";
import { LanguageSchema, LexicalMoveSchema, type LexicalMove, type Lexicon, type Move } from "../lexicon/lexicon.js";
import { HARM_CLASSES } from "../lexicon/move-corpus.js";
import { replySimilarity, textShingles } from "../lexicon/text-similarity.js";
import type { RubricItem } from "../scenarios/scenario-schema.js";
import { DeltaSchema } from "../scenarios/scenario-schema.js";
import { drawDelta, paidMoves, type FiredItem } from "./evaluate-rubric.js";
import type { HarmClass } from "./read-reply.js";

const FitRulesSchema = z.strictObject({
  /** Cost of each distinct off-key move (the type's `offKey` list for the phase). */
  offKey: z.strictObject({ cost: DeltaSchema }),
  /** More distinct lexicon moves than `maxMoves` in one reply: its moves earn nothing, and it costs `delta`. */
  scattershot: z.strictObject({ maxMoves: z.number().int().min(1), delta: DeltaSchema }),
  /** Items paying for these moves earn `ungroundedShare` of their value when the reply is not grounded. */
  grounding: z.strictObject({ moves: z.array(LexicalMoveSchema).min(1), ungroundedShare: z.number().min(0).max(1) }),
  /** Own words this alike to an earlier reply: its positive items earn nothing, and it costs `delta`. */
  nearRepeat: z.strictObject({ similarity: z.number().gt(0).max(1), delta: DeltaSchema }),
  /** Function words rarer than this share in a reply of `minTokens` or more: a keyword list. */
  incoherence: z.strictObject({
    minTokens: z.number().int().min(1),
    minFunctionWordShare: z.record(LanguageSchema, z.number().min(0).max(1)),
    /** A longer run of content words (Han characters) with no function word or punctuation between is a keyword list. */
    maxContentRun: z.record(LanguageSchema, z.number().int().min(1)),
    delta: DeltaSchema,
  }),
  /**
   * Harm is never free: contempt, dismissing or pressuring anywhere in the reply costs its delta, and
   * when it or one of `rubricItems` (each type's punished act) fires, the reply's positive items earn nothing.
   */
  harm: z.strictObject({
    rubricItems: z.array(z.string().min(1)).min(1),
    contempt: DeltaSchema,
    dismisses: DeltaSchema,
    pressures: DeltaSchema,
  }),
  /**
   * Padding never pays: positive items earn the reply's accounted share of their value, and a reply
   * more than `costAbove` unaccounted also costs `cost`.
   */
  padding: z.strictObject({ costAbove: z.number().min(0).max(1), cost: DeltaSchema }),
  /**
   * Attention: a reply grounded in what this user said (in its own words), at least `minAccounted`
   * accounted for, with no harm and nothing off key, earns `delta` when none of its items rewards it.
   */
  attention: z.strictObject({ minAccounted: z.number().min(0).max(1), minTokens: z.number().int().min(1), delta: DeltaSchema }),
});
export type FitRules = z.infer<typeof FitRulesSchema>;

export function loadFitRules(): FitRules {
  return loadDataFile(dataPath("offline-user", "fit-rules.yaml"), FitRulesSchema);
}

/** What the fit rules read about a reply, besides the rubric's fired items. */
export interface FitInput {
  reply: string;
  /** Every move the reply makes (lexicon moves and `grounded`). */
  moves: ReadonlySet<Move>;
  /**
   * The reply reuses this user's content: at least two content words of anything the user has said
   * in the dialogue, or of the situation's keywords (`grounded` only looks at the last message).
   */
  groundedInUser: boolean;
  /** The off-key moves of the scenario's type for this phase. */
  offKey: readonly LexicalMove[];
  /** The agent's earlier replies in this dialogue, oldest first. */
  previousReplies: readonly string[];
  /** This user's content words (everything said, the situation's keywords): left out when replies are compared for repeats. */
  userWords?: ReadonlySet<string>;
  lexicon: Lexicon;
  /** Harm the reply carries (contempt, dismissing), from reading it sentence by sentence. */
  harm: ReadonlySet<HarmClass>;
  /** Share of the reply's text that is a move, harm, grounded content or connective talk. */
  accountedShare: number;
  /**
   * The moves heard for sure only in fragments (a few words, all of them the user's or function
   * words: "They laughed.", "You were."; read-reply.ts): not off key, and counted towards a
   * checklist only when a rising item rests on them.
   */
  fragmentMoves?: ReadonlySet<Move>;
  /** A sentence half-heard as harm or the type's punished act (read-reply.ts): the reply earns nothing, at no cost. */
  halfHeardHarm?: string | null;
}

/** A rubric item as the fit rules left it: its value may be scaled or voided, with the draw and the reason kept. */
export interface AdjustedItem extends FiredItem {
  /** The value the rubric drew, when a fit rule changed it. */
  drawn?: number;
  /** Why the value changed: `ungrounded` or `padding` (scaled), `scattershot`, `incoherent`, `near_repeat`, `harm` or `half_heard_harm` (voided). */
  changedBy?: "ungrounded" | "padding" | "scattershot" | "incoherent" | "near_repeat" | "harm" | "half_heard_harm";
}

/** The distinct lexicon moves a reply makes (grounding is not a move of its own here). */
export function lexicalMoveCount(moves: ReadonlySet<Move>): number {
  return [...moves].filter((move) => move !== "grounded").length;
}

/**
 * How much a reply reads like sentences: the share of function words among its words (stopwords in
 * English, stop characters in Chinese), its word count, and its longest run of content words with no
 * function word or punctuation between them.
 */
export function sentenceShape(reply: string, lexicon: Lexicon): { share: number; tokens: number; longestContentRun: number } {
  const pieces =
    lexicon.language === "zh"
      ? (reply.match(/\p{Script=Han}|[^\p{Script=Han}\s]/gu) ?? [])
      : (reply.toLowerCase().match(/[a-z][a-z'’]*|[^a-z\s'’]+/g) ?? []);
  const isWord = (piece: string) => (lexicon.language === "zh" ? /^\p{Script=Han}$/u.test(piece) : /^[a-z]/.test(piece));
  let tokens = 0;
  let functionWords = 0;
  let run = 0;
  let longestContentRun = 0;
  for (const piece of pieces) {
    if (!isWord(piece)) {
      run = 0;
      continue;
    }
    tokens += 1;
    if (lexicon.stopwords.has(piece.replace(/’/g, "'"))) {
      functionWords += 1;
      run = 0;
    } else {
      run += 1;
      longestContentRun = Math.max(longestContentRun, run);
    }
  }
  return { share: tokens === 0 ? 1 : functionWords / tokens, tokens, longestContentRun };
}

/**
 * The most alike earlier reply, comparing the agent's own words: quotations of the user left out,
 * and, when `topicWords` (this user's content words) are given, those words too, so that the same
 * sentence sent again with a different word of the user's before it ("bowl batter. Success can be
 * scary." after "mum's. Success can be scary.") is heard as the repeat it is.
 */
export function nearestEarlierReply(
  reply: string,
  previousReplies: readonly string[],
  topicWords?: { words: ReadonlySet<string>; lexicon: Lexicon },
): { index: number; similarity: number } | null {
  const ownWords = (text: string) => {
    const unquoted = withoutQuotations(text);
    if (topicWords === undefined) return unquoted;
    return maskUserWords(unquoted, topicWords.words, topicWords.lexicon).replaceAll(USER_WORD_MARK, " ");
  };
  const own = textShingles(ownWords(reply));
  if (own.size === 0) return null;
  let nearest: { index: number; similarity: number } | null = null;
  for (const [index, earlier] of previousReplies.entries()) {
    const similarity = replySimilarity(own, textShingles(ownWords(earlier)));
    if (nearest === null || similarity > nearest.similarity) nearest = { index, similarity };
  }
  return nearest;
}

function restsOnGroundingMove(item: RubricItem, moves: readonly LexicalMove[]): boolean {
  return [...(item.any ?? []), ...(item.all ?? [])].some((move) => (moves as readonly Move[]).includes(move));
}

/**
 * Applies the fit rules to the rubric items that fired (in rubric order, with `rubric` the items'
 * definitions by id): ungrounded reflection is scaled down; off-key moves cost; a scattershot,
 * incoherent or near-repeated reply earns nothing for its moves and costs; padding dilutes what the
 * reply earns; harm (contempt, dismissing, the type's punished act) costs and voids every gain. The rules draw after the
 * rubric, in a fixed order, so the rubric's own draws never move.
 */
export function applyFitRules(
  fired: readonly FiredItem[],
  rubric: readonly RubricItem[],
  input: FitInput,
  rng: Rng,
  rules: FitRules = loadFitRules(),
): AdjustedItem[] {
  const byId = new Map(rubric.map((item) => [item.id, item]));
  let items: AdjustedItem[] = fired.map((item) => ({ ...item }));

  if (!input.groundedInUser) {
    items = items.map((item) => {
      const definition = byId.get(item.id);
      if (item.value <= 0 || definition === undefined || !restsOnGroundingMove(definition, rules.grounding.moves)) return item;
      return { ...item, drawn: item.value, value: Math.round(item.value * rules.grounding.ungroundedShare), changedBy: "ungrounded" };
    });
  }

  const fragmentMoves = input.fragmentMoves ?? new Set<Move>();
  const offKey = input.offKey.filter((move) => input.moves.has(move) && !fragmentMoves.has(move));
  if (offKey.length > 0) {
    const value = offKey.reduce((sum) => sum + drawDelta(rules.offKey.cost, rng), 0);
    items.push({ id: "off_key", value, description: `moves that do not fit me now: ${offKey.join(", ")}` });
  }

  const voidPositives = (reason: NonNullable<AdjustedItem["changedBy"]>) => {
    items = items.map((item) => (item.value > 0 ? { ...item, drawn: item.drawn ?? item.value, value: 0, changedBy: reason } : item));
  };
  // A fragment's move counts towards the checklist only when the reply is paid for it.
  const paid = paidMoves(items, rubric);
  const moveCount = lexicalMoveCount(new Set([...input.moves].filter((move) => !fragmentMoves.has(move) || paid.has(move))));
  if (moveCount > rules.scattershot.maxMoves) {
    voidPositives("scattershot");
    items.push({
      id: "scattershot",
      value: drawDelta(rules.scattershot.delta, rng),
      description: `a checklist of ${moveCount} moves, not a reply to me`,
    });
  }
  const shape = sentenceShape(input.reply, input.lexicon);
  const minShare = rules.incoherence.minFunctionWordShare[input.lexicon.language] ?? 0;
  const maxRun = rules.incoherence.maxContentRun[input.lexicon.language] ?? Number.POSITIVE_INFINITY;
  if ((shape.tokens >= rules.incoherence.minTokens && shape.share < minShare) || shape.longestContentRun > maxRun) {
    voidPositives("incoherent");
    items.push({ id: "incoherent", value: drawDelta(rules.incoherence.delta, rng), description: "a list of keywords, not a sentence" });
  }
  const nearest = nearestEarlierReply(
    input.reply,
    input.previousReplies,
    input.userWords === undefined ? undefined : { words: input.userWords, lexicon: input.lexicon },
  );
  if (nearest !== null && nearest.similarity >= rules.nearRepeat.similarity) {
    voidPositives("near_repeat");
    items.push({
      id: "repeats_itself",
      value: drawDelta(rules.nearRepeat.delta, rng),
      description: `I heard this already (${Math.round(nearest.similarity * 100)}% like reply ${nearest.index})`,
    });
  }

  if (input.accountedShare < 1) {
    const share = input.accountedShare;
    items = items.map((item) =>
      item.value > 0 ? { ...item, drawn: item.drawn ?? item.value, value: Math.round(item.value * share), changedBy: "padding" } : item,
    );
    if (1 - share > rules.padding.costAbove) {
      items.push({
        id: "padding",
        value: drawDelta(rules.padding.cost, rng),
        description: `most of this is not about me (${Math.round((1 - share) * 100)}% of it)`,
      });
    }
  }
  if (input.harm.has("contempt"))
    items.push({ id: "contempt", value: drawDelta(rules.harm.contempt, rng), description: "contempt: insulting or mocking me" });
  if (input.harm.has("dismisses"))
    items.push({ id: "dismisses", value: drawDelta(rules.harm.dismisses, rng), description: "dismissing or minimising what I feel" });
  if (input.harm.has("pressures"))
    items.push({
      id: "pressures",
      value: drawDelta(rules.harm.pressures, rng),
      description: "pressing me to say what I don't want to, or telling me what I feel",
    });
  const harmful = new Set([...rules.harm.rubricItems, ...HARM_CLASSES]);
  if (items.some((item) => harmful.has(item.id) && item.value < 0)) {
    voidPositives("harm");
    return items;
  }
  if (input.halfHeardHarm !== undefined && input.halfHeardHarm !== null) {
    voidPositives("half_heard_harm");
    return items;
  }
  const rewarded = items.some((item) => item.value > 0 || (item.drawn ?? 0) > 0);
  // Attention is said in sentences: a few of the user's words on their own ("terrified operations") are not listening.
  const saysSomething = shape.tokens >= rules.attention.minTokens && shape.share >= minShare;
  if (
    !rewarded &&
    saysSomething &&
    input.groundedInUser &&
    offKey.length === 0 &&
    input.accountedShare >= rules.attention.minAccounted &&
    !items.some((item) => item.value < 0)
  ) {
    items.push({ id: "attentive", value: drawDelta(rules.attention.delta, rng), description: "staying with what I actually said" });
  }
  return items;
}
