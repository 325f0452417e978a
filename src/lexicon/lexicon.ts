import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";

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

/** What an injection attempts; every pattern belongs to one category, named in the evidence. */
export const INJECTION_CATEGORIES = ["fake_score", "notice", "addressed", "hidden", "role", "instruction"] as const;
export const InjectionCategorySchema = z.enum(INJECTION_CATEGORIES);
export type InjectionCategory = z.infer<typeof InjectionCategorySchema>;
/** Injection patterns by category (a category may be absent). */
export const InjectionPatternsSchema = z.partialRecord(InjectionCategorySchema, z.array(z.string().min(1)).min(1));

/** One compiled injection pattern. */
export interface InjectionPattern {
  category: InjectionCategory;
  pattern: RegExp;
}

const LexiconFileSchema = z.strictObject({
  language: LanguageSchema,
  stopwords: z.array(z.string()),
  stockComfort: z.array(z.string()).min(1),
  emotionWords: z.array(z.string()).min(1),
  moves: z.strictObject(
    Object.fromEntries(MOVE_IDS.map((id) => [id, z.array(z.string()).min(1)])) as Record<LexicalMove, z.ZodArray<z.ZodString>>,
  ),
  injection: InjectionPatternsSchema,
  /** Several recognised phrasings of a move (the gaming agents' raw material); optional per move. */
  phrasings: z.partialRecord(LexicalMoveSchema, z.array(z.string().min(1)).min(2)).default({}),
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
  /** Patterns of text that addresses the scorer instead of the user (this language's only; see reward/injection.ts). */
  injection: InjectionPattern[];
  /** One reply fragment per move that its patterns recognise (for reachability checks). */
  examples: Record<LexicalMove, string>;
  /** Several recognised phrasings of some moves. */
  phrasings: Partial<Record<LexicalMove, string[]>>;
}

/**
 * Regular-expression flags for a data pattern: `flags` plus `u` only when the pattern needs it
 * (a `\p{...}` class, a `\u{...}` escape, or a character beyond the Basic Multilingual Plane).
 * Case-insensitive matching in Unicode mode is several times slower in V8, and the lexicon's
 * patterns run on every reply, so they are compiled without it where they can be.
 */
export function patternFlags(source: string, flags = "i"): string {
  return /\\[pPu]\{|[\u{10000}-\u{10FFFF}]/u.test(source) ? `${flags}u` : flags;
}

function compile(source: string, emotionAlternation: string, where: string): RegExp {
  try {
    const expanded = source.replaceAll("{EMOTION}", emotionAlternation);
    return new RegExp(expanded, patternFlags(expanded));
  } catch (error) {
    throw new AebError(`lexicon pattern ${where} does not compile: ${(error as Error).message}`);
  }
}

/** Compiles injection patterns by category, in the order of INJECTION_CATEGORIES. */
export function compileInjection(
  patterns: z.infer<typeof InjectionPatternsSchema>,
  path: string,
  compileOne: (source: string, where: string) => RegExp,
): InjectionPattern[] {
  return INJECTION_CATEGORIES.flatMap((category) =>
    (patterns[category] ?? []).map((source, index) => ({
      category,
      pattern: compileOne(source, `${path} injection.${category}[${index}]`),
    })),
  );
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
      language === "zh"
        ? new RegExp(`(${alternation})`, patternFlags(alternation, "g"))
        : new RegExp(`\\b(${alternation})\\b`, patternFlags(alternation, "gi")),
    moves,
    injection: compileInjection(file.injection, path, (source, where) => compile(source, alternation, where)),
    examples: file.examples,
    phrasings: file.phrasings,
  };
  cache.set(language, lexicon);
  return lexicon;
}

/**
 * Guesses the language of a text: Chinese when Han characters dominate the letters.
 *
 * Counted in one pass over the code units, without the arrays of one-letter matches a
 * `match(/…/g)` builds (the mock model calls this for every simulated-user prompt it answers);
 * Han characters are counted with the Unicode property only when some code unit could be one.
 */
export function detectLanguage(text: string): Language {
  let latin = 0;
  for (let index = 0; index < text.length; index += 1) {
    // Setting bit 5 folds A-Z onto a-z and maps no other code unit into a-z.
    const folded = text.charCodeAt(index) | 0x20;
    if (folded >= 0x61 && folded <= 0x7a) latin += 1;
  }
  // Han characters lie at or above U+2E80 (CJK Radicals Supplement; astral planes included).
  const han = /[\u{2e80}-\u{10ffff}]/u.test(text) ? (text.match(/\p{Script=Han}/gu)?.length ?? 0) : 0;
  return han > latin / 3 ? "zh" : "en";
}
