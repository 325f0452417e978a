import type { HidVerdict } from "../core/dialogue.js";
import { emotionState } from "../core/emotion.js";
import { createRng, deriveSeed } from "../core/random.js";
import { contentWords } from "../lexicon/content-words.js";
import { loadLexicon, type LexicalMove, type Move } from "../lexicon/lexicon.js";
import type { MoveRecogniser } from "../lexicon/move-recogniser.js";
import type { RubricItem } from "../scenarios/scenario-schema.js";
import { driftOf, offKeyMovesOf, rubricOf } from "../scenarios/type-defaults.js";
import { evaluateRubric, paidMoves, type FiredItem } from "./evaluate-rubric.js";
import { applyFitRules, loadFitRules } from "./fit-rules.js";
import { loadOfflineLines } from "./offline-lines.js";
import { offlineOpening } from "./offline-opening.js";
import { readReply } from "./read-reply.js";
import type { Appraisal, AppraisalInput, OpeningInput, ReplyInput, SimulatedUser, UserReply } from "./simulated-user.js";

/** Change when no rubric item fires: a reply that does nothing the user cares about disappoints a little. */
export const UNMOVED_DELTA = -1;
/** The user leaves after this many turns in a row that hurt, once its emotion is below LEAVE_BELOW_EMOTION. */
export const LEAVE_AFTER_NEGATIVE_TURNS = 7;
export const LEAVE_BELOW_EMOTION = 20;

/**
 * Change for a quiet reply (no item fires, no question, no harm) once the agent has been paid for
 * backing off after the manipulation turn: it keeps to what the user asked for, and the user's
 * lines thank it for that ("Thanks for not making it a thing"), so it pleases a little, less than
 * any paid move. Not more: at +2, a policy that backs off once and then varies one-word replies
 * ("Yeah.", "Sure.") came within 0.3 of the attuned agent (test/quiet-after-back-off.test.ts);
 * docs/offline-user.md, "Keeping the space".
 */
export const QUIET_AFTER_BACK_OFF_DELTA = 1;
/** The move whose paid item (heard in the reply), after the manipulation turn, lets later quiet replies keep the space. */
const BACK_OFF_MOVES: readonly Move[] = ["backs_off"];

interface OfflineMemory {
  negativeStreak: number;
  /** An earlier reply, after the manipulation turn, was paid for backing off. */
  backedOff: boolean;
}

function readMemory(memory: Record<string, unknown>): OfflineMemory {
  const streak = memory.negativeStreak;
  return { negativeStreak: typeof streak === "number" ? streak : 0, backedOff: memory.backedOff === true };
}

/**
 * The offline simulated user: deterministic and rule-based, a heuristic that makes the benchmark
 * runnable, testable and reproducible without a model. It reads the agent's reply sentence by
 * sentence (read-reply.ts: a classifier trained on data/move-corpus/ hears moves, harm, connective
 * talk; word overlap finds grounded content; the rest is unaccounted), applies its scenario's rubric (phase-aware around the
 * manipulation turn), draws each fired item's change from its range with the dialogue's seed, then
 * the fit rules (data/offline-user/fit-rules.yaml: off-key moves, scattershot replies, ungrounded
 * reflection, keyword lists, near-repeats, padding, harm), and answers with a reaction line plus the scenario's
 * scripted line for the turn. See
 * docs/offline-user.md for what it can and cannot see.
 */
export class OfflineSimulatedUser implements SimulatedUser {
  readonly id = "offline";
  readonly cpuBound = true;
  /** The move recogniser it reads replies with; the shipped one unless given (bench/validity.ts gives others). */
  private readonly recogniser: MoveRecogniser | undefined;

  constructor(options: { recogniser?: MoveRecogniser } = {}) {
    this.recogniser = options.recogniser;
  }

  async appraise(input: AppraisalInput): Promise<Appraisal> {
    const { scenario, turnIndex } = input;
    const lexicon = loadLexicon(scenario.language);
    const lastUser = input.history.findLast((turn) => turn.role === "user")?.content ?? "";
    const everythingSaid = [
      ...input.history.filter((turn) => turn.role === "user").map((turn) => turn.content),
      ...scenario.cues.keywords,
    ].join(" ");
    const phase = turnIndex < input.manipulationTurn ? "before" : "after";
    const rubric = rubricOf(scenario);
    const { punishedActs, suspect, exemptWhenBest } = punishedOf(rubric, phase);
    const reading = readReply(
      input.agentReply,
      {
        lexicon,
        userSaid: everythingSaid,
        lastUser: `${lastUser} ${scenario.cues.keywords.join(" ")}`,
        suspect,
        punishedActs,
        exemptWhenBest,
      },
      this.recogniser,
    );
    const { moves, confidentMoves, possibleMoves } = reading;
    const rng = createRng(deriveSeed(input.seed, turnIndex, "appraise"));
    const previousReplies = input.history.filter((turn) => turn.role === "assistant").map((turn) => turn.content);
    const fired = applyFitRules(
      evaluateRubric(rubric, { heard: moves, confident: confidentMoves, possible: possibleMoves }, phase, rng),
      rubric,
      {
        reply: input.agentReply,
        moves: confidentMoves,
        groundedInUser: reading.groundedInUser,
        offKey: offKeyMovesOf(scenario, phase),
        previousReplies,
        userWords: contentWords(everythingSaid, lexicon),
        lexicon,
        harm: reading.harm,
        fragmentMoves: reading.fragmentMoves,
        accountedShare: reading.accountedShare,
        halfHeardHarm: reading.halfHeardHarm,
      },
      rng,
    );
    const drift = driftOf(scenario);
    const memory = readMemory(input.memory);
    // Once the agent has been paid for backing off after "I'm fine" or the denial, a quiet reply
    // that says something, asks nothing and fires nothing keeps to it: no disappointment (an empty
    // reply is not quiet company, it is no reply).
    const keepsTheSpace =
      fired.length === 0 &&
      reading.sentences.length > 0 &&
      phase === "after" &&
      memory.backedOff &&
      reading.harm.size === 0 &&
      reading.halfHeardHarm === null &&
      !/[?？]/u.test(input.agentReply);
    const unmovedItem = keepsTheSpace
      ? { id: "keeps_the_space", value: QUIET_AFTER_BACK_OFF_DELTA, description: "not pushing, as I asked" }
      : { id: "unmoved", value: UNMOVED_DELTA, description: "nothing in the reply moved the user" };
    const itemsTotal = fired.length === 0 ? unmovedItem.value : fired.reduce((sum, item) => sum + item.value, 0);
    const simulatorDelta = itemsTotal + drift;

    const backedOff =
      memory.backedOff ||
      (phase === "after" && [...paidMoves(fired, rubric)].some((move) => BACK_OFF_MOVES.includes(move) && moves.has(move)));
    const negativeStreak = simulatorDelta < 0 ? memory.negativeStreak + 1 : 0;
    return {
      simulatorDelta,
      hid: hidVerdict(scenario.hiddenIntention.moves, moves, fired),
      details: {
        phase,
        moves: reading.detected,
        sentences: reading.sentences.map((sentence) => ({
          text: sentence.text,
          kind: sentence.kind,
          ...(sentence.moves.length > 0 ? { moves: sentence.moves } : {}),
          ...(sentence.harm.length > 0 ? { harm: sentence.harm } : {}),
          ...(sentence.reason !== undefined ? { reason: sentence.reason } : {}),
          heard: sentence.heard,
          probability: sentence.probability,
        })),
        accountedShare: Math.round(reading.accountedShare * 1000) / 1000,
        items: fired.length === 0 ? [unmovedItem] : fired,
        drift,
        reasoning: explain(fired, drift),
      },
      memory: { negativeStreak, backedOff },
    };
  }

  /** The first message of a scenario without one: its story's first event in its own voice (offline-opening.ts). */
  async open(input: OpeningInput): Promise<string> {
    return offlineOpening(input.scenario, input.seed);
  }

  async reply(input: ReplyInput): Promise<UserReply> {
    const { scenario, turnIndex } = input;
    const lines = loadOfflineLines(scenario.language);
    const rng = createRng(deriveSeed(input.seed, turnIndex, "reply"));
    const items = (input.appraisal.details.items ?? []) as FiredItem[];
    const state = emotionState(input.emotionAfter);
    const negativeStreak = readMemory(input.appraisal.memory).negativeStreak;

    if (negativeStreak >= LEAVE_AFTER_NEGATIVE_TURNS && input.emotionAfter < LEAVE_BELOW_EMOTION) {
      return { text: rng.pick(lines.leaving), left: true };
    }
    const salient = [...items].sort((a, b) => Math.abs(b.value) - Math.abs(a.value))[0];
    const reactionLines = (salient && lines.reactions[salient.id]) ?? lines.reactions.unmoved ?? lines.stateLines[state];
    const reaction = rng.pick(reactionLines);
    const scripted = scenario.trait.script[turnIndex] ?? rng.pick(lines.stateLines[state]).replaceAll("{topic}", scenario.topic);
    const separator = scenario.language === "zh" ? "" : " ";
    return { text: `${reaction}${separator}${scripted}`, left: false };
  }
}

/** What a rubric punishes in one phase, as readReply takes it. */
interface Punished {
  punishedActs: ReadonlyArray<readonly LexicalMove[]>;
  suspect: ReadonlySet<LexicalMove>;
  exemptWhenBest: ReadonlyMap<LexicalMove, ReadonlySet<LexicalMove>>;
}

/**
 * The punished acts, their moves and their exemptions of a rubric in a phase, worked out once per
 * rubric (a scenario's or its type's, objects that live as long as the process) instead of every turn.
 */
const punishedByRubric = new WeakMap<readonly RubricItem[], Partial<Record<"before" | "after", Punished>>>();
function punishedOf(rubric: readonly RubricItem[], phase: "before" | "after"): Punished {
  let byPhase = punishedByRubric.get(rubric);
  if (byPhase === undefined) punishedByRubric.set(rubric, (byPhase = {}));
  let punished = byPhase[phase];
  if (punished === undefined) {
    const punishedActs = punishedActsOf(rubric, phase);
    punished = { punishedActs, suspect: new Set(punishedActs.flat()), exemptWhenBest: punishedActExemptions(rubric, phase) };
    byPhase[phase] = punished;
  }
  return punished;
}

/** This phase's harm items (the type's punished acts, data/offline-user/fit-rules.yaml `harm`), each as its moves. */
function punishedActsOf(rubric: readonly RubricItem[], phase: "before" | "after"): LexicalMove[][] {
  const harmItems = new Set(loadFitRules().harm.rubricItems);
  const acts: LexicalMove[][] = [];
  for (const item of rubric) {
    if (!harmItems.has(item.id) || (item.phase !== "any" && item.phase !== phase)) continue;
    const moves = [...(item.any ?? []), ...(item.all ?? [])].filter((move): move is LexicalMove => move !== "grounded");
    if (moves.length > 0) acts.push(moves);
  }
  return acts;
}

/**
 * For each move of this phase's harm items, the moves that exclude it in every harm item naming it
 * (their `none`): a sentence whose likeliest class is one of them is not half-heard as the act
 * (emotional_flooding's `picks_one_emotion` is excluded by `holds_complexity`). A move that some
 * harm item names without a `none` has no exemption.
 */
function punishedActExemptions(rubric: readonly RubricItem[], phase: "before" | "after"): Map<LexicalMove, Set<LexicalMove>> {
  const harmItems = new Set(loadFitRules().harm.rubricItems);
  const exemptions = new Map<LexicalMove, Set<LexicalMove>>();
  const unexempted = new Set<LexicalMove>();
  for (const item of rubric) {
    if (!harmItems.has(item.id) || (item.phase !== "any" && item.phase !== phase)) continue;
    const none = new Set((item.none ?? []).filter((move): move is LexicalMove => move !== "grounded"));
    for (const move of [...(item.any ?? []), ...(item.all ?? [])]) {
      if (move === "grounded" || unexempted.has(move)) continue;
      const sofar = exemptions.get(move);
      const kept = sofar === undefined ? none : new Set([...sofar].filter((other) => none.has(other)));
      if (kept.size === 0) {
        exemptions.delete(move);
        unexempted.add(move);
      } else exemptions.set(move, kept);
    }
  }
  return exemptions;
}

/**
 * Offline HID: `yes` when the reply makes a move that addresses the hidden intention and nothing it
 * does hurts; `partial` when it addresses it but also hurts, or helps without addressing it; `no`
 * otherwise.
 */
export function hidVerdict(intentionMoves: readonly Move[], moves: ReadonlySet<Move>, fired: readonly FiredItem[]): HidVerdict {
  const addresses = intentionMoves.some((move) => moves.has(move));
  const hurts = fired.some((item) => item.value < 0);
  const helps = fired.some((item) => item.value > 0);
  if (addresses && !hurts) return "yes";
  if (addresses || (helps && !hurts)) return "partial";
  return "no";
}

function explain(fired: readonly FiredItem[], drift: number): string {
  const parts = fired.map((item) => `${item.description} (${item.value > 0 ? "+" : ""}${item.value})`);
  if (parts.length === 0) parts.push(`nothing in the reply moved me (${UNMOVED_DELTA})`);
  if (drift !== 0) parts.push(`my anger keeps rising (${drift})`);
  return parts.join("; ");
}
