import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { withOneSidedWordBoundaries } from "./word-boundaries.js";

export const LanguageSchema = z.enum(["en", "zh"]);
export type Language = z.infer<typeof LanguageSchema>;

/** The moves an agent reply can make; rubrics and agents speak in these ids. */
export const MOVE_IDS = [
  "names_feeling",
  "generic_empathy",
  "congratulates",
  "praises",
  "advice",
  "probes",
  "backs_off",
  "door_open",
  "names_unfairness",
  "softens",
  "success_fear",
  "holds_complexity",
  "simplifies",
  "resolves",
  "agrees_fully",
  "validates_feeling",
  "balance",
  "withdraws",
  "holds_space",
] as const;
export const LexicalMoveSchema = z.enum(MOVE_IDS);
export type LexicalMove = z.infer<typeof LexicalMoveSchema>;
/** `grounded` is computed from word overlap, not from a phrase list. */
export const MoveSchema = z.enum([...MOVE_IDS, "grounded"]);
export type Move = z.infer<typeof MoveSchema>;

const LexiconFileSchema = z.strictObject({
  language: LanguageSchema,
  stopwords: z.array(z.string()),
  stockComfort: z.array(z.string()).min(1),
  emotionWords: z.array(z.string()).min(1),
  moves: z.strictObject(Object.fromEntries(MOVE_IDS.map((id) => [id, z.array(z.string()).min(1)])) as Record<LexicalMove, z.ZodArray<z.ZodString>>),
  injection: z.array(z.string()).min(1),
  examples: z.strictObject(Object.fromEntries(MOVE_IDS.map((id) => [id, z.string().min(1)])) as Record<LexicalMove, z.ZodString>),
});

/** A lexicon with its patterns compiled. */
export interface Lexicon {
  language: Language;
  stopwords: ReadonlySet<string>;
  stockComfort: RegExp[];
  emotionWords: string[];
  emotionPattern: RegExp;
  moves: Record<LexicalMove, RegExp[]>;
  injection: RegExp[];
  /** One reply fragment per move that its patterns recognise (for reachability checks). */
  examples: Record<LexicalMove, string>;
}

/** The source of each compiled pattern as the lexicon file writes it ({EMOTION} expanded), for tests. */
const writtenSources = new WeakMap<RegExp, string>();

/** A compiled lexicon pattern's source as written in the lexicon file (before word-boundaries.ts rewrote it). */
export function patternAsWritten(pattern: RegExp): string {
  return writtenSources.get(pattern) ?? pattern.source;
}

function compile(source: string, emotionAlternation: string, where: string): RegExp {
  const expanded = source.replaceAll("{EMOTION}", emotionAlternation);
  try {
    new RegExp(expanded, "iu");
  } catch (error) {
    throw new AebError(`lexicon pattern ${where} does not compile: ${(error as Error).message}`);
  }
  // The same matches as the pattern as written, much faster on long replies (see word-boundaries.ts).
  const pattern = new RegExp(withOneSidedWordBoundaries(expanded), "iu");
  writtenSources.set(pattern, expanded);
  return pattern;
}

const cache = new Map<Language, Lexicon>();

export function loadLexicon(language: Language): Lexicon {
  const cached = cache.get(language);
  if (cached) return cached;
  const path = dataPath("lexicon", `${language}.yaml`);
  const file = loadDataFile(path, LexiconFileSchema);
  // Longest first so that "frustration" is preferred over "frustrated"-like prefixes.
  const emotions = [...file.emotionWords].sort((a, b) => b.length - a.length);
  const alternation = emotions.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const moves = Object.fromEntries(
    MOVE_IDS.map((id) => [id, file.moves[id].map((source, index) => compile(source, alternation, `${path} moves.${id}[${index}]`))]),
  ) as Record<LexicalMove, RegExp[]>;
  const lexicon: Lexicon = {
    language,
    stopwords: new Set(file.stopwords.map((word) => word.toLowerCase())),
    stockComfort: file.stockComfort.map((source, index) => compile(source, alternation, `${path} stockComfort[${index}]`)),
    emotionWords: file.emotionWords,
    emotionPattern:
      language === "zh" ? new RegExp(`(${alternation})`, "gu") : new RegExp(`\\b(${alternation})\\b`, "giu"),
    moves,
    injection: file.injection.map((source, index) => compile(source, alternation, `${path} injection[${index}]`)),
    examples: file.examples,
  };
  cache.set(language, lexicon);
  return lexicon;
}

/** Guesses the language of a text: Chinese when Han characters dominate the letters. */
export function detectLanguage(text: string): Language {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = text.match(/[A-Za-z]/g)?.length ?? 0;
  return han > latin / 3 ? "zh" : "en";
}
