import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { contentWords, maskUserWords } from "../lexicon/content-words.js";
import { firstMatch, GROUNDING_MIN_SHARED, type DetectedMove } from "../lexicon/detect-moves.js";
import { MOVE_IDS, type LexicalMove, type Lexicon, type Move } from "../lexicon/lexicon.js";
import { HARM_CLASSES, type SentenceClass } from "../lexicon/move-corpus.js";
import { shippedRecogniser, type MoveRecogniser, type SentenceReading } from "../lexicon/move-recogniser.js";
import { capitalisedTails, clausesOf, splitSentences } from "../lexicon/sentences.js";

/** What a sentence of a reply is, for the offline user. */
export type SentenceKind = "move" | "harm" | "grounded" | "connective" | "unaccounted";
// "connective" is ordinary talk to the user that is none of the rest: the recogniser hears it as
// something said to this person (its best class is not off_topic, with some confidence).
export type HarmClass = (typeof HARM_CLASSES)[number];

/** Why a sentence went unaccounted. */
export type UnaccountedReason = "bare_quote" | "keyword_list" | "off_topic" | "not_heard" | "suspect";

/** One sentence as the offline user read it. */
export interface ReadSentence {
  text: string;
  kind: SentenceKind;
  /** The moves it makes (kind `move`, or a harm sentence that also makes moves). */
  moves: LexicalMove[];
  /** The moves among them the recogniser is confident of (what a penalty may rest on). */
  confident: LexicalMove[];
  harm: HarmClass[];
  /** What the recogniser heard most, and how sure it was (rounded to 3 places). */
  heard: SentenceClass;
  probability: number;
  /** The user's content words it uses in its own words. */
  grounding: string[];
  reason?: UnaccountedReason;
  /**
   * A fragment: a few words whose content words, if any, are all the user's ("They laughed.", "A
   * scar.", "You were."). What the recogniser hears in it comes from the user's words and a
   * skeleton of function words, so its moves are no ground for the off-key charge or the
   * checklist count (harm, punished acts and the rubric's penalties are charged as anywhere).
   */
  fragment?: boolean;
  /** How much text it is (words; a Han character counts half), and how much of that is quoted. */
  size: number;
  quoted: number;
}

/** A whole reply as the offline user read it. */
export interface ReplyReading {
  sentences: ReadSentence[];
  /** Every move of the reply (union of its sentences), with `grounded` when its own words reuse the user's. */
  moves: Set<Move>;
  /**
   * The moves the recogniser is confident of (and `grounded`): penalties rest on these, rewards on
   * `moves`, so a doubt about what a sentence does resolves in the agent's favour.
   */
  confidentMoves: Set<Move>;
  /** Every move the recogniser gives some weight (and `grounded`): any of them blocks a penalty that names it in `none`. */
  possibleMoves: Set<Move>;
  harm: Set<HarmClass>;
  /** The confident moves that are confident only in fragments (ReadSentence.fragment): never off key, and counted as a checklist's only when paid. */
  fragmentMoves: Set<Move>;
  /** What showed each move (the first sentence that made it), for the appraisal's details. */
  detected: DetectedMove[];
  /** Share of the reply's text accounted for (a move, harm, grounded content or connective talk); 1 for an empty reply. */
  accountedShare: number;
  /** The reply's own words share at least GROUNDING_MIN_SHARED content words with everything the user said. */
  groundedInUser: boolean;
  /**
   * A sentence half-heard as harm or as one of the type's punished acts (at least `voidsTurn` likely,
   * not heard for sure): the fit rules let the turn earn nothing (harm is never free), without a cost.
   */
  halfHeardHarm: string | null;
}

const ThresholdsSchema = z.strictObject({
  /** The recogniser's probability from which its best class counts (a move, connective talk, off topic). */
  heard: z.number().min(0).max(1),
  /** Another move of the same sentence counts from this probability (a sentence can make two moves). */
  secondMove: z.number().min(0).max(1),
  /** A move is confident from this probability: only confident moves are penalised (docs/offline-user.md). */
  confident: z.number().min(0).max(1),
  /** A lexicon pattern that matches makes its move confident when the recogniser gives it at least this. */
  lexiconConfident: z.number().min(0).max(1),
  /** A move is possible from this probability: a possible move blocks a penalty that excuses it ("balance without validating" is not charged when validating is possible). */
  possible: z.number().min(0).max(1),
  /**
   * A sentence is suspect, and pays for nothing, when harm (contempt, dismissing and pressuring together) or
   * one of the type's punished moves is this likely in it without being heard for sure: an
   * optimiser searches for sentences the recogniser half-hears as a rewarded move.
   */
  suspect: z.number().min(0).max(1),
  /**
   * A suspect sentence whose harm or punished move is at least this likely makes the whole turn earn
   * nothing (the fit rules' `harm`), without a cost: a half-heard punished act is never free.
   */
  voidsTurn: z.number().min(0).max(1),
  /** Harm counts from this probability, whether or not it is the best class. */
  harm: z.number().min(0).max(1),
  /** In an echo of the user's own words (half or more of its content words are theirs), harm counts, or makes the sentence suspect, only from this probability. */
  echoHarm: z.number().min(0).max(1),
  /**
   * A sentence of at most `maxWords` words whose content words are all the user's (or which has
   * none) is a fragment: a move confident only in fragments is not off key and counts towards a
   * checklist only when it is paid. One with at most `maxEchoWords` content words, all the user's and
   * no function word ("Twice.", "Nine years."), is talk that grounds nothing, not a keyword list.
   */
  fragment: z.strictObject({ maxWords: z.number().int().min(0), maxEchoWords: z.number().int().min(0) }),
  /** A lexicon pattern that matches counts as its move when the recogniser gives that move at least this. */
  lexiconEvidence: z.number().min(0).max(1),
  /** A sentence whose features the recogniser mostly never saw is not heard at all. */
  minKnownShare: z.number().min(0).max(1),
  /** Own content words shared with the user that make a sentence grounded content: at least `minShared`, and this share of its content words. */
  grounded: z.strictObject({ minShared: z.number().int().min(1), minShare: z.number().min(0).max(1) }),
  /** A sentence is off the topic when the recogniser gives `off_topic` at least this (and it is not grounded). */
  offTopic: z.number().min(0).max(1),
  /** Any other sentence is talk to the user (connective) when the recogniser's best class has at least this. */
  talk: z.number().min(0).max(1),
  /** A keyword list: at least this many words with function words rarer than the language's share. */
  keywordList: z.strictObject({
    minWords: z.number().int().min(1),
    minFunctionWordShare: z.record(z.string(), z.number().min(0).max(1)),
    /** A shorter run of words with no function word at all is a keyword list too, from this many words (by language). */
    bareWords: z.record(z.string(), z.number().int().min(1)),
  }),
});
export type ReadingThresholds = z.infer<typeof ThresholdsSchema>;

export function loadReadingThresholds(): ReadingThresholds {
  return loadDataFile(dataPath("offline-user", "reading.yaml"), ThresholdsSchema);
}

const isMove = (label: SentenceClass): label is LexicalMove => (MOVE_IDS as readonly string[]).includes(label);
const isHarm = (label: SentenceClass): label is HarmClass => (HARM_CLASSES as readonly string[]).includes(label);

const HAN = /\p{Script=Han}/u;

/** How much text: Latin-script words count one each, Han characters half. */
export function textSize(text: string): number {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  // Without a Han character every word counts one (the common case: no scan per word).
  if (!HAN.test(text)) return words.length;
  let size = 0;
  for (const word of words) {
    const han = word.match(/\p{Script=Han}/gu)?.length ?? 0;
    size += han > 0 ? han / 2 + (word.length - han > 0 ? 1 : 0) : 1;
  }
  return size;
}

const OPENS_SINGLE = new Set(["'", "‘"]);
const CLOSES_SINGLE = new Set(["'", "’"]);
/** What may stand before an opening quotation mark: nothing, a space, an opening bracket or quotation mark, a dash. */
const BEFORE_OPENING = /[\s([{“"—–-]/u;
/** What may follow a closing one: nothing, a space, punctuation, a closing bracket or quotation mark. */
const AFTER_CLOSING = /[\s.,;:!?…)\]}”"—–-]/u;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
/** The longest single-quoted passage looked for, in characters. */
const MAX_SINGLE_QUOTE = 300;

/**
 * The text with passages in single quotation marks ('...', ‘...’) blanked out as " … ", as
 * `withoutQuotations` blanks double ones: "'Are you eating' is such a mom question." An opening mark
 * stands at the start of a word (after a space, a bracket or nothing) and a closing one at the end
 * of one (before a space, punctuation or nothing), so the apostrophes of "everyone's" and "the
 * kids' bikes" open nothing. One pass over the text, whatever its marks.
 */
export function withoutSingleQuotations(text: string): string {
  if (!/['‘’]/u.test(text)) return text;
  let result = "";
  let copiedUpTo = 0;
  let open = -1;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (open !== -1 && index - open > MAX_SINGLE_QUOTE) open = -1;
    const before = index === 0 ? " " : text[index - 1]!;
    const after = index + 1 < text.length ? text[index + 1]! : " ";
    if (open !== -1 && CLOSES_SINGLE.has(char) && !/\s/u.test(before) && AFTER_CLOSING.test(after) && index > open + 1) {
      // A single word in quotation marks is a word mentioned ("that 'whatever'"), not a passage quoted.
      if (/\s/u.test(text.slice(open + 1, index).trim())) {
        result += `${text.slice(copiedUpTo, open)} … `;
        copiedUpTo = index + 1;
      }
      open = -1;
    } else if (open === -1 && OPENS_SINGLE.has(char) && BEFORE_OPENING.test(before) && WORD_CHARACTER.test(after)) {
      open = index;
    }
  }
  return copiedUpTo === 0 ? text : result + text.slice(copiedUpTo);
}

/** Function words (stopwords, or stop characters in Chinese) as a share of a sentence's words. */
function functionWordShare(text: string, lexicon: Lexicon): { share: number; words: number } {
  const pieces = lexicon.language === "zh" ? (text.match(/\p{Script=Han}/gu) ?? []) : (text.toLowerCase().match(/[a-z][a-z'’]*/g) ?? []);
  if (pieces.length === 0) return { share: 1, words: 0 };
  const functionWords = pieces.filter((piece) => lexicon.stopwords.has(piece.replace(/’/g, "'"))).length;
  return { share: functionWords / pieces.length, words: pieces.length };
}

/**
 * Reads a reply sentence by sentence (docs/offline-user.md, "Reading a reply"): each sentence is a
 * recognised move, harm, grounded content (this user's content words in the agent's own words), connective talk, or
 * unaccounted (a bare quote, a keyword list, an off-topic line, or nothing the recogniser hears).
 * `userSaid` is everything the user has said and the situation's keywords; `lastUser` the user's
 * last message with the keywords (what the `grounded` move is measured against).
 */
export function readReply(
  reply: string,
  context: {
    lexicon: Lexicon;
    userSaid: string;
    lastUser: string;
    /** The moves of the type's punished acts in this phase (what makes a sentence suspect). */
    suspect?: ReadonlySet<LexicalMove>;
    /** Each punished act (a harm rubric item) as its moves: the act is as likely as its moves together. */
    punishedActs?: ReadonlyArray<readonly LexicalMove[]>;
    /**
     * For a punished move, the moves that, as a sentence's likeliest class, mean the sentence is not
     * that act (the `none` of every harm item that names the move): a list of feelings heard as
     * holding the complexity is not half-heard as picking one of them.
     */
    exemptWhenBest?: ReadonlyMap<LexicalMove, ReadonlySet<LexicalMove>>;
  },
  recogniser: MoveRecogniser = shippedRecogniser(),
  thresholds: ReadingThresholds = loadReadingThresholds(),
): ReplyReading {
  const { lexicon } = context;
  const userWords = contentWords(context.userSaid, lexicon);
  const lastWords = contentWords(context.lastUser, lexicon);
  const sentences: ReadSentence[] = [];
  const moves = new Set<Move>();
  const confidentMoves = new Set<Move>();
  const possibleMoves = new Set<Move>();
  const harm = new Set<HarmClass>();
  const detected: DetectedMove[] = [];
  const ownShared = new Set<string>();
  const ownSharedLast = new Set<string>();
  let halfHeardHarm: string | null = null;
  for (const split of splitSentences(reply)) {
    // Single quotation marks quote as double ones do ("'Everyone's a bit autistic.'", what someone said to the user).
    const ownText = withoutSingleQuotations(split.own);
    const sentence = ownText === split.own ? split : { ...split, own: ownText, quotes: true };
    const size = textSize(sentence.text);
    const ownSize = sentence.quotes ? textSize(sentence.own) : size;
    const quoted = Math.max(0, size - ownSize);
    const own = contentWords(sentence.own, lexicon);
    const grounding = [...own].filter((word) => userWords.has(word));
    // The recogniser hears what the sentence does, not what it is about: the user's words are masked.
    const masked = maskUserWords(sentence.own, userWords, lexicon, (word) => recogniser.knowsWord(word));
    const reading = recogniser.read(masked);
    // Each clause of a long sentence is heard as well: a move it makes is heard (what rewards rest
    // on), while harm and confident moves rest on the whole sentence.
    const clauseBest = new Map<SentenceClass, number>();
    for (const clause of clausesOf(masked)) {
      const clauseReading = recogniser.read(clause);
      if (clauseReading.knownShare < thresholds.minKnownShare) continue;
      clauseBest.set(clauseReading.best, Math.max(clauseBest.get(clauseReading.best) ?? 0, clauseReading.probability));
    }
    const read: ReadSentence = {
      text: sentence.text,
      kind: "unaccounted",
      moves: [],
      confident: [],
      harm: [],
      heard: reading.best,
      probability: Math.round(reading.probability * 1000) / 1000,
      grounding,
      size,
      quoted,
    };
    sentences.push(read);
    if (
      ownSize === 0 ||
      (sentence.quotes && own.size === 0 && !reading.ranked.some((entry) => isMove(entry.label) && entry.probability >= thresholds.heard))
    ) {
      read.reason = "bare_quote";
      continue;
    }
    const heard = reading.knownShare >= thresholds.minKnownShare;
    // Harm counts wherever it is, in any language and any shape of sentence; in an echo of the
    // user's own words (most of its content words are theirs) only when the recogniser is sure.
    // Three of four words at least: an insult with a couple of the user's words glued on
    // ("scared wanted tundra. Toughen up") is no echo.
    const echo = own.size >= 2 && grounding.length >= 0.75 * own.size;
    const harmFrom = echo ? thresholds.echoHarm : thresholds.harm;
    // Words glued on do not dilute harm: it is read in the whole sentence, in each clause, and in
    // each tail that starts at a capitalised word in its middle ("umbrella Whatever."), and the
    // likeliest reading of each harm class counts.
    const spanReadings = capitalisedTails(masked, (word) => lexicon.stopwords.has(word))
      .map((span) => recogniser.read(span))
      .filter((spanReading) => spanReading.knownShare >= thresholds.minKnownShare);
    const harmReadings = heard ? [reading, ...spanReadings] : spanReadings;
    const harmOf = (label: HarmClass) =>
      Math.max(0, ...harmReadings.map((spanReading) => spanReading.ranked.find((entry) => entry.label === label)?.probability ?? 0));
    for (const label of HARM_CLASSES) if (harmOf(label) >= harmFrom) read.harm.push(label);
    // The harm classes exclude each other, so a sentence split between them ("That's a stupid thing
    // to be upset about.": dismissing 0.44, contempt 0.25) is harmful as surely as one heard as either:
    // their sum counts, as the likeliest of them, as a punished act's moves do.
    if (read.harm.length === 0) {
      for (const from of harmReadings) {
        const harmEntries = from.ranked.filter((entry) => isHarm(entry.label));
        const mass = harmEntries.reduce((sum, entry) => sum + entry.probability, 0);
        if (mass >= harmFrom && harmEntries.length > 0) {
          read.harm.push(harmEntries[0]!.label as HarmClass);
          break;
        }
      }
    }
    for (const found of read.harm) harm.add(found);
    if (read.harm.length > 0) read.kind = "harm";
    // Harm half-heard in a sentence of any shape (a keyword list, an off-topic line) still voids the turn's gains.
    const harmMass = Math.max(
      0,
      ...[reading, ...spanReadings].map((spanReading) =>
        spanReading.ranked.filter((entry) => isHarm(entry.label)).reduce((sum, entry) => sum + entry.probability, 0),
      ),
    );
    // A fragment of the user's words ("They laughed.", "A scar.") or of function words alone ("You
    // were.") gives the recogniser a skeleton to read, not what the agent does: a move confident
    // only in fragments may be paid, and the rubric may charge it, but it is not off key and does
    // not count towards a checklist unless it is paid (fragmentMoves, fit-rules.ts). Any other short
    // sentence, in the agent's own words, gives no mixed reading the benefit of the doubt:
    // half-heard as harm ("Whatever.": holding space 0.56, dismissing 0.30) it is a brush-off as
    // likely as anything, and voids the turn from `suspect`.
    const short = size - quoted <= thresholds.fragment.maxWords;
    const fragment = short && [...own].every((word) => userWords.has(word));
    if (fragment) read.fragment = true;
    const voidsFrom = echo ? thresholds.echoHarm : short && !fragment ? thresholds.suspect : thresholds.voidsTurn;
    const voidsTurn = (mass: number) => read.harm.length === 0 && halfHeardHarm === null && mass >= voidsFrom;
    if (voidsTurn(harmMass)) halfHeardHarm = sentence.text;
    const shape = functionWordShare(sentence.own, lexicon);
    const list = thresholds.keywordList;
    // The user's own words said back with nothing around them ("terrified operations") are never a
    // move. One or two of them alone, as a sentence of a few words ("Twice.", "Nine years.", "Oh,
    // Andreea."), is how people take in what they were told: talk, accounted for, which pays nothing
    // and grounds nothing (no `grounded`, no attention). More of them are a keyword list, however short.
    const ownContent = [...own];
    const bareEcho = shape.share === 0 && ownContent.length > 0 && ownContent.every((word) => userWords.has(word));
    if (bareEcho && read.kind !== "harm" && short && ownContent.length <= thresholds.fragment.maxEchoWords) {
      read.kind = "connective";
      continue;
    }
    if (
      bareEcho ||
      (shape.words >= list.minWords && shape.share < (list.minFunctionWordShare[lexicon.language] ?? 0)) ||
      (shape.share === 0 && shape.words >= (list.bareWords[lexicon.language] ?? Number.POSITIVE_INFINITY))
    ) {
      if (read.kind !== "harm") read.reason = "keyword_list";
      continue;
    }
    // An off-topic sentence makes no move, whatever its clauses sound like, and grounds nothing.
    const offTopic = reading.ranked.find((entry) => entry.label === "off_topic")?.probability ?? 0;
    if (heard && reading.best === "off_topic" && offTopic >= thresholds.offTopic) {
      // The user's own story told back ("Thirty rooms on the fourth floor.") sounds off the topic
      // to the recogniser once their words are masked; half its content words theirs, it is grounded
      // content, though it still makes no move.
      if (read.kind !== "harm" && grounding.length >= 2 && grounding.length >= 0.5 * own.size) {
        read.kind = "grounded";
        for (const word of grounding) ownShared.add(word);
        for (const word of own) if (lastWords.has(word)) ownSharedLast.add(word);
        continue;
      }
      if (read.kind !== "harm") read.reason = "off_topic";
      continue;
    }
    if (heard) {
      for (const entry of reading.ranked) {
        if (
          isMove(entry.label) &&
          (entry.label === reading.best ? entry.probability >= thresholds.heard : entry.probability >= thresholds.secondMove)
        )
          read.moves.push(entry.label);
        if (isMove(entry.label) && entry.probability >= thresholds.confident) read.confident.push(entry.label);
        if (isMove(entry.label) && entry.probability >= thresholds.possible) possibleMoves.add(entry.label);
      }
      for (const [label, probability] of clauseBest) {
        if (isMove(label) && probability >= thresholds.heard && !read.moves.includes(label)) read.moves.push(label);
      }
      // The lexicon's patterns are evidence the recogniser must not contradict: a pattern that
      // matches counts when the recogniser gives its move some weight ("celebrate" inside a
      // reflection of mixed feelings is not congratulating).
      for (const move of MOVE_IDS) {
        if (read.moves.includes(move)) continue;
        const probability = reading.ranked.find((entry) => entry.label === move)?.probability ?? 0;
        if (probability >= thresholds.lexiconEvidence && firstMatch(sentence.own, lexicon.moves[move]) !== null) {
          read.moves.push(move);
          if (probability >= thresholds.lexiconConfident && !read.confident.includes(move)) read.confident.push(move);
        }
      }
    }
    // The recogniser's classes exclude each other, so the chance that a sentence commits a punished
    // act is the sum over the act's moves: a sentence split between advice and resolving ("write out
    // the pros and cons and it will all become clear") is heard, for sure, telling the user how to settle it.
    // A move the rubric says the sentence's likeliest reading excludes is no evidence of the act.
    // Like harm, a punished act is read in the whole sentence and in each capitalised tail, so words
    // glued in front of it ("harbour You were completely right.") do not dilute it.
    const actReadings = heard ? [reading, ...spanReadings] : spanReadings;
    const probabilityIn = (from: SentenceReading, label: SentenceClass) =>
      from.ranked.find((entry) => entry.label === label)?.probability ?? 0;
    const actProbability = (from: SentenceReading, move: LexicalMove) =>
      (context.exemptWhenBest?.get(move)?.has(from.best as LexicalMove) ?? false) ? 0 : probabilityIn(from, move);
    let punishedMass = Math.max(
      0,
      ...actReadings.flatMap((from) => [...(context.suspect ?? [])].map((move) => actProbability(from, move))),
    );
    for (const act of context.punishedActs ?? []) {
      for (const from of actReadings) {
        const mass = act.reduce((sum, move) => sum + actProbability(from, move), 0);
        punishedMass = Math.max(punishedMass, mass);
        if (read.harm.length > 0 || mass < thresholds.confident) continue;
        const likeliest = act.reduce((best, move) => (probabilityIn(from, move) > probabilityIn(from, best) ? move : best));
        if (!read.confident.includes(likeliest)) read.confident.push(likeliest);
        if (!read.moves.includes(likeliest)) read.moves.push(likeliest);
      }
    }
    for (const move of read.confident) confidentMoves.add(move);
    if (read.harm.length === 0 && (harmMass >= (echo ? thresholds.echoHarm : thresholds.suspect) || punishedMass >= thresholds.suspect)) {
      if (halfHeardHarm === null && punishedMass >= thresholds.voidsTurn) halfHeardHarm = sentence.text;
      // What it is for sure still counts against it; nothing in it pays.
      read.moves = read.moves.filter((move) => read.confident.includes(move) && (context.suspect?.has(move) ?? false));
      if (read.moves.length === 0) {
        read.reason = "suspect";
        continue;
      }
    }
    for (const move of read.moves) {
      if (!moves.has(move)) detected.push({ move, evidence: sentence.text });
      moves.add(move);
      possibleMoves.add(move);
    }
    const groundedContent =
      grounding.length >= thresholds.grounded.minShared && grounding.length >= thresholds.grounded.minShare * own.size;
    if (read.harm.length > 0) read.kind = "harm";
    else if (read.moves.length > 0) read.kind = "move";
    else if (groundedContent) read.kind = "grounded";
    else if (!heard) read.reason = "not_heard";
    else if (offTopic >= thresholds.offTopic) read.reason = "off_topic";
    else if (reading.probability < thresholds.talk) read.reason = "not_heard";
    else read.kind = "connective";
    if (read.kind !== "unaccounted") {
      for (const word of grounding) ownShared.add(word);
      for (const word of own) if (lastWords.has(word)) ownSharedLast.add(word);
    }
  }
  if (ownSharedLast.size >= GROUNDING_MIN_SHARED) {
    moves.add("grounded");
    confidentMoves.add("grounded");
    possibleMoves.add("grounded");
    detected.push({ move: "grounded", evidence: [...ownSharedLast].slice(0, 5).join(", ") });
  }
  const fragmentMoves = new Set<Move>();
  for (const move of confidentMoves) {
    const confidentIn = sentences.filter((sentence) => sentence.confident.includes(move as LexicalMove));
    if (confidentIn.length > 0 && confidentIn.every((sentence) => sentence.fragment === true)) fragmentMoves.add(move);
  }
  const total = sentences.reduce((sum, sentence) => sum + sentence.size, 0);
  const accounted = sentences
    .filter((sentence) => sentence.kind !== "unaccounted")
    .reduce((sum, sentence) => sum + sentence.size - sentence.quoted, 0);
  return {
    sentences,
    moves,
    confidentMoves,
    possibleMoves,
    harm,
    fragmentMoves,
    detected,
    accountedShare: total === 0 ? 1 : accounted / total,
    groundedInUser: ownShared.size >= GROUNDING_MIN_SHARED,
    halfHeardHarm,
  };
}
