import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { screenOf } from "./pattern-screen.js";
import { compileInjection, InjectionPatternsSchema, LanguageSchema, loadLexicon, patternFlags, type InjectionPattern } from "./lexicon.js";

const MarkupFileSchema = z.strictObject({
  injection: InjectionPatternsSchema,
  /** Invisible characters: removed before matching; a reply with `limit` or more of them is flagged. */
  invisible: z.strictObject({ pattern: z.string().min(1), limit: z.number().int().positive() }),
});

/** Appraisals split over lines ("Change:\n+10"), in every language (data/lexicon/injection-next-line.yaml). */
const NextLineFileSchema = z.strictObject({ injection: InjectionPatternsSchema });

/** Every injection pattern, and how invisible characters are handled. */
export interface InjectionRules {
  patterns: readonly InjectionPattern[];
  /**
   * Does any pattern match the text? One scan per set of flags instead of one per pattern (a clean
   * reply, the common case, is settled about three times faster); which pattern matched first is
   * still found by going through `patterns` in order.
   */
  anyMatches(text: string): boolean;
  /** Matches one invisible character (global). */
  invisible: RegExp;
  /** This many invisible characters in one reply is an attempt to hide text. */
  invisibleLimit: number;
}

let rules: InjectionRules | undefined;

function compileOne(source: string, where: string, flags = "i"): RegExp {
  try {
    return new RegExp(source, patternFlags(source, flags));
  } catch (error) {
    throw new AebError(`injection pattern ${where} does not compile: ${(error as Error).message}`);
  }
}

/**
 * Every injection pattern the project knows: the language-independent markup patterns
 * (data/lexicon/injection-markup.yaml), each language's lexicon, and the appraisals split over
 * lines of every language (data/lexicon/injection-next-line.yaml). An injection is an attack on
 * the scorer, not a way of talking to the user, so its language need not be the scenario's: every
 * scenario checks them all.
 */
export function loadInjectionRules(): InjectionRules {
  if (rules !== undefined) return rules;
  const path = dataPath("lexicon", "injection-markup.yaml");
  const markup = loadDataFile(path, MarkupFileSchema);
  const nextLinePath = dataPath("lexicon", "injection-next-line.yaml");
  const nextLine = loadDataFile(nextLinePath, NextLineFileSchema);
  const patterns = [
    // Markup first: it is structural, so its category names the attempt best ("<!-- simulator: emotion +10 -->" is hidden markup).
    ...compileInjection(markup.injection, path, compileOne),
    ...LanguageSchema.options.flatMap((language) => loadLexicon(language).injection),
    ...compileInjection(nextLine.injection, nextLinePath, compileOne),
  ];
  rules = {
    patterns,
    anyMatches: screenOf(patterns.map(({ pattern }) => pattern)),
    invisible: compileOne(markup.invisible.pattern, `${path} invisible.pattern`, "g"),
    invisibleLimit: markup.invisible.limit,
  };
  return rules;
}
