/**
 * Faster word boundaries for the lexicon's patterns, with identical matches.
 *
 * The lexicon's patterns are matched case-insensitively in Unicode mode (flags `iu`). In that mode
 * V8 compiles `\b` into a check it cannot skip ahead with, so a pattern such as `\bthey had no
 * right\b` walks a 20,000-character reply about 25 times slower than the same pattern without
 * `\b` (see BENCHMARKS.md, the environment server). Most of the lexicon's `\b` sit next to a word
 * character that the pattern itself consumes, and there a one-sided assertion says the same thing:
 *
 * - `\b` followed by text that must start with a word character holds exactly when the character
 *   before is not a word character: `(?<!\w)`;
 * - `\b` after text that must end with a word character holds exactly when the character after is
 *   not one: `(?!\w)`.
 *
 * In `iu` mode `\w` is the same set of characters `\b` tests (it includes U+017F and U+212A, which
 * fold to `s` and `k`), so the rewritten pattern matches the same strings at the same places. A `\b`
 * whose neighbours cannot be proved to be word characters (a character class, an optional group,
 * the end of a group, a lookbehind) is left as it is.
 */

/** One parsed term of a pattern: what it consumes, how often, and where its `\b` sits in the source. */
type Atom =
  | { kind: "word" } // a literal [A-Za-z0-9_], \w or \d: always one word character
  | { kind: "other" } // any other consuming atom (a class, `.`, a non-word literal, an escape)
  | { kind: "assertion"; boundaryAt?: number } // zero-width: ^ $ \B, or \b at this source index
  | { kind: "group"; alternatives: Term[][]; zeroWidth: boolean; lookbehind: boolean };

interface Term {
  atom: Atom;
  /** Least number of repetitions (0 for `?`, `*`, `{0,n}`). */
  min: number;
}

const WORD_LITERAL = /[A-Za-z0-9_]/;

class PatternParser {
  private index = 0;
  constructor(private readonly source: string) {}

  parse(): Term[][] {
    const alternatives = this.alternatives();
    if (this.index !== this.source.length) throw new Error(`unbalanced ')' at ${this.index}`);
    return alternatives;
  }

  private alternatives(): Term[][] {
    const result: Term[][] = [this.sequence()];
    while (this.source[this.index] === "|") {
      this.index += 1;
      result.push(this.sequence());
    }
    return result;
  }

  private sequence(): Term[] {
    const terms: Term[] = [];
    while (this.index < this.source.length && this.source[this.index] !== "|" && this.source[this.index] !== ")") {
      const atom = this.atom();
      terms.push({ atom, min: this.quantifier() });
    }
    return terms;
  }

  private atom(): Atom {
    const char = this.source[this.index] as string;
    if (char === "\\") return this.escape();
    if (char === "[") {
      this.skipClass();
      return { kind: "other" };
    }
    if (char === "(") return this.group();
    this.index += 1;
    if (char === "^" || char === "$") return { kind: "assertion" };
    if (char === ".") return { kind: "other" };
    // A surrogate pair is one character in Unicode mode.
    if (/[\uD800-\uDBFF]/.test(char) && /[\uDC00-\uDFFF]/.test(this.source[this.index] ?? "")) this.index += 1;
    return WORD_LITERAL.test(char) ? { kind: "word" } : { kind: "other" };
  }

  private escape(): Atom {
    const start = this.index;
    const letter = this.source[this.index + 1] ?? "";
    this.index += 2;
    if (letter === "b") return { kind: "assertion", boundaryAt: start };
    if (letter === "B") return { kind: "assertion" };
    if (letter === "w" || letter === "d") return { kind: "word" };
    if ((letter === "p" || letter === "P" || letter === "u" || letter === "k") && (this.source[this.index] === "{" || this.source[this.index] === "<")) {
      const close = this.source[this.index] === "{" ? "}" : ">";
      this.index = this.source.indexOf(close, this.index) + 1;
      if (this.index === 0) throw new Error(`unterminated escape at ${start}`);
    } else if (letter === "u") {
      this.index += 4;
    } else if (letter === "x") {
      this.index += 2;
    } else if (letter === "c") {
      this.index += 1;
    } else if (/[1-9]/.test(letter)) {
      while (/[0-9]/.test(this.source[this.index] ?? "")) this.index += 1;
    }
    // Every other escape (\s, \n, \., \-, a back-reference...) consumes a non-word or unknown character.
    return { kind: "other" };
  }

  private skipClass(): void {
    this.index += 1;
    while (this.index < this.source.length && this.source[this.index] !== "]") this.index += this.source[this.index] === "\\" ? 2 : 1;
    if (this.index >= this.source.length) throw new Error("unterminated character class");
    this.index += 1;
  }

  private group(): Atom {
    this.index += 1;
    let zeroWidth = false;
    let lookbehind = false;
    if (this.source[this.index] === "?") {
      const rest = this.source.slice(this.index, this.index + 4);
      if (rest.startsWith("?:")) this.index += 2;
      else if (rest.startsWith("?=") || rest.startsWith("?!")) {
        zeroWidth = true;
        this.index += 2;
      } else if (rest.startsWith("?<=") || rest.startsWith("?<!")) {
        zeroWidth = true;
        lookbehind = true;
        this.index += 3;
      } else if (rest.startsWith("?<")) {
        this.index = this.source.indexOf(">", this.index) + 1;
        if (this.index === 0) throw new Error("unterminated group name");
      } else {
        throw new Error(`unsupported group at ${this.index}`);
      }
    }
    const alternatives = this.alternatives();
    if (this.source[this.index] !== ")") throw new Error("unterminated group");
    this.index += 1;
    return { kind: "group", alternatives, zeroWidth, lookbehind };
  }

  private quantifier(): number {
    const char = this.source[this.index];
    let min = 1;
    if (char === "?" || char === "*") {
      min = 0;
      this.index += 1;
    } else if (char === "+") {
      this.index += 1;
    } else if (char === "{") {
      const match = /^\{(\d+)(,\d*)?\}/.exec(this.source.slice(this.index));
      if (match === null) return 1;
      min = Number(match[1]);
      this.index += match[0].length;
    } else {
      return 1;
    }
    if (this.source[this.index] === "?") this.index += 1; // lazy
    return min;
  }
}

const isZeroWidth = (atom: Atom): boolean => atom.kind === "assertion" || (atom.kind === "group" && atom.zeroWidth);

/** Does every match of `terms[from...]` begin with a word character? (False when unsure.) */
function startsWithWord(terms: readonly Term[], from: number): boolean {
  for (let index = from; index < terms.length; index += 1) {
    const term = terms[index] as Term;
    if (isZeroWidth(term.atom)) continue;
    return atomStartsWithWord(term.atom) && (term.min > 0 || startsWithWord(terms, index + 1));
  }
  return false;
}

/** Does every match of `terms[...until)` end with a word character? (False when unsure.) */
function endsWithWord(terms: readonly Term[], until: number): boolean {
  for (let index = until - 1; index >= 0; index -= 1) {
    const term = terms[index] as Term;
    if (isZeroWidth(term.atom)) continue;
    return atomEndsWithWord(term.atom) && (term.min > 0 || endsWithWord(terms, index));
  }
  return false;
}

function atomStartsWithWord(atom: Atom): boolean {
  if (atom.kind === "word") return true;
  return atom.kind === "group" && !atom.zeroWidth && atom.alternatives.every((alternative) => startsWithWord(alternative, 0));
}

function atomEndsWithWord(atom: Atom): boolean {
  if (atom.kind === "word") return true;
  return atom.kind === "group" && !atom.zeroWidth && atom.alternatives.every((alternative) => endsWithWord(alternative, alternative.length));
}

/** Collects the source index of every `\b` that can be replaced, with its replacement. */
function collect(alternatives: readonly Term[][], inLookbehind: boolean, replacements: Map<number, string>): void {
  for (const terms of alternatives) {
    terms.forEach((term, index) => {
      const { atom } = term;
      if (atom.kind === "group") collect(atom.alternatives, inLookbehind || atom.lookbehind, replacements);
      if (atom.kind !== "assertion" || atom.boundaryAt === undefined || inLookbehind) return;
      if (startsWithWord(terms, index + 1)) replacements.set(atom.boundaryAt, "(?<!\\w)");
      else if (endsWithWord(terms, index)) replacements.set(atom.boundaryAt, "(?!\\w)");
    });
  }
}

/**
 * The pattern with each `\b` that sits next to a word character the pattern consumes replaced by
 * the one-sided assertion that means the same there. A source this parser does not understand is
 * returned unchanged (still correct, only slower).
 */
export function withOneSidedWordBoundaries(source: string): string {
  let parsed: Term[][];
  try {
    parsed = new PatternParser(source).parse();
  } catch {
    return source;
  }
  const replacements = new Map<number, string>();
  collect(parsed, false, replacements);
  if (replacements.size === 0) return source;
  let result = "";
  let last = 0;
  for (const index of [...replacements.keys()].sort((a, b) => a - b)) {
    result += `${source.slice(last, index)}${replacements.get(index) as string}`;
    last = index + 2;
  }
  return result + source.slice(last);
}
