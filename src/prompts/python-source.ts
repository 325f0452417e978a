/**
 * Just enough of Python's lexical grammar to read prompt strings out of a Python source file
 * without running it: a tokenizer for names, numbers, operators, comments, line joining and every
 * string literal form (prefixes r/u/b/f in any combination Python allows, single, double and
 * triple quotes, escapes, implicit concatenation, f-strings with nested replacement fields), and a
 * scan of the statements that matter for prompts: `name = "..."` and `name = {...}` assignments,
 * with the function they sit in, and `.replace("{{x}}", ...)` calls.
 *
 * Why a tokenizer and not regular expressions over the file: a template is a triple-quoted string
 * that may contain quotes, `#`, braces and lines that look like code; only reading the file the way
 * Python reads it finds where each string starts and ends. Why not Python's own `ast` through a
 * script: RLVER's simulator is not valid Python (`ast.parse` fails on it), and `tokenize` would
 * only replace the string reading (docs/models.md, "Why a Python lexer in TypeScript").
 */
import { AebError } from "../core/errors.js";

export class PythonSourceError extends AebError {
  override readonly name = "PythonSourceError";
}

export type PythonToken =
  | { kind: "string"; value: string; fString: boolean; line: number }
  | { kind: "name"; value: string; line: number }
  | { kind: "number"; value: string; line: number }
  | { kind: "op"; value: string; line: number }
  /** End of a logical line (not emitted inside brackets or after a backslash continuation). */
  | { kind: "newline"; line: number };

const STRING_PREFIX = /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/u;
const OPERATORS = ["**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ">>", "<<"];

const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/**
 * Python's escape sequences in a non-raw string: \\n and friends, octal, \\x, \\u, \\U; a backslash
 * before a newline joins the lines; an unknown escape stays as written (as Python keeps it).
 */
function decodeEscapes(body: string, line: number, bytes: boolean): string {
  let out = "";
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] as string;
    if (char !== "\\" || index === body.length - 1) {
      out += char;
      continue;
    }
    const next = body[index + 1] as string;
    if (next === "\n") {
      index += 1;
      continue;
    }
    if (SIMPLE_ESCAPES[next] !== undefined) {
      out += SIMPLE_ESCAPES[next];
      index += 1;
      continue;
    }
    const octal = /^[0-7]{1,3}/u.exec(body.slice(index + 1));
    if (octal !== null) {
      out += String.fromCodePoint(parseInt(octal[0], 8));
      index += octal[0].length;
      continue;
    }
    const hexLength = next === "x" ? 2 : !bytes && next === "u" ? 4 : !bytes && next === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = body.slice(index + 2, index + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`, "u").test(hex)) throw new PythonSourceError(`line ${line}: truncated \\${next} escape`);
      out += String.fromCodePoint(parseInt(hex, 16));
      index += 1 + hexLength;
      continue;
    }
    if (!bytes && next === "N") throw new PythonSourceError(`line ${line}: \\N{...} escapes are not supported in prompt strings`);
    out += char;
  }
  return out;
}

/** Tokenizes Python source. Errors (an unterminated string, an unclosed bracket) name the line. */
export function tokenizePython(source: string): PythonToken[] {
  const text = source.replace(/\r\n?/gu, "\n");
  const tokens: PythonToken[] = [];
  let index = 0;
  let line = 1;
  let depth = 0;
  const push = (token: PythonToken) => tokens.push(token);
  const endLogicalLine = () => {
    const last = tokens.at(-1);
    if (last !== undefined && last.kind !== "newline") push({ kind: "newline", line });
  };
  while (index < text.length) {
    const char = text[index] as string;
    if (char === "\n") {
      if (depth === 0) endLogicalLine();
      line += 1;
      index += 1;
      continue;
    }
    if (char === " " || char === "\t" || char === "\f") {
      index += 1;
      continue;
    }
    if (char === "#") {
      while (index < text.length && text[index] !== "\n") index += 1;
      continue;
    }
    if (char === "\\" && text[index + 1] === "\n") {
      index += 2;
      line += 1;
      continue;
    }
    const word = /^[A-Za-z_\p{L}][\w\p{L}\p{N}]*/u.exec(text.slice(index, index + 200));
    if (word !== null) {
      const quote = text[index + word[0].length];
      if ((quote === '"' || quote === "'") && STRING_PREFIX.test(word[0])) {
        const read = readString(text, index + word[0].length, word[0], line);
        push({ kind: "string", value: read.value, fString: /f/iu.test(word[0]), line });
        line += read.lines;
        index = read.end;
        continue;
      }
      push({ kind: "name", value: word[0], line });
      index += word[0].length;
      continue;
    }
    if (char === '"' || char === "'") {
      const read = readString(text, index, "", line);
      push({ kind: "string", value: read.value, fString: false, line });
      line += read.lines;
      index = read.end;
      continue;
    }
    const number = /^(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)/u.exec(text.slice(index, index + 100));
    if (number !== null && number[0] !== ".") {
      push({ kind: "number", value: number[0], line });
      index += number[0].length;
      continue;
    }
    if ("([{".includes(char)) depth += 1;
    if (")]}".includes(char)) {
      if (depth === 0) throw new PythonSourceError(`line ${line}: unmatched '${char}'`);
      depth -= 1;
    }
    const operator = OPERATORS.find((candidate) => text.startsWith(candidate, index)) ?? char;
    push({ kind: "op", value: operator, line });
    index += operator.length;
  }
  if (depth !== 0) throw new PythonSourceError(`line ${line}: a bracket is never closed`);
  endLogicalLine();
  return tokens;
}

/**
 * One string literal starting at its opening quote. An f-string's replacement fields are kept as
 * written (`{expr}`), with their own brackets and strings skipped over, and `{{`/`}}` read as braces.
 */
function readString(text: string, start: number, prefix: string, line: number): { value: string; end: number; lines: number } {
  const quote = text[start] as string;
  const triple = text.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  const raw = /r/iu.test(prefix);
  const fString = /f/iu.test(prefix);
  const bytes = /b/iu.test(prefix);
  let index = start + delimiter.length;
  let literal = "";
  let value = "";
  const flushLiteral = () => {
    value += raw ? literal : decodeEscapes(literal, line, bytes);
    literal = "";
  };
  for (;;) {
    if (index >= text.length) throw new PythonSourceError(`line ${line}: a string is never closed`);
    const char = text[index] as string;
    if (char === "\\") {
      literal += text.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (!triple && char === "\n") throw new PythonSourceError(`line ${line}: a string is never closed on its line`);
    if (text.startsWith(delimiter, index)) {
      flushLiteral();
      const consumed = text.slice(start, index + delimiter.length);
      return { value, end: index + delimiter.length, lines: consumed.split("\n").length - 1 };
    }
    if (fString && (char === "{" || char === "}")) {
      if (text[index + 1] === char) {
        literal += char;
        index += 2;
        continue;
      }
      if (char === "}") throw new PythonSourceError(`line ${line}: a single '}' in an f-string`);
      flushLiteral();
      const fieldEnd = replacementFieldEnd(text, index, line);
      value += text.slice(index, fieldEnd);
      index = fieldEnd;
      continue;
    }
    literal += char;
    index += 1;
  }
}

/** Where an f-string replacement field that opens at `start` ends (after its closing brace). */
function replacementFieldEnd(text: string, start: number, line: number): number {
  let depth = 0;
  let index = start;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"' || char === "'") {
      index = readString(text, index, "", line).end;
      continue;
    }
    if ("([{".includes(char)) depth += 1;
    if (")]}".includes(char)) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
    index += 1;
  }
  throw new PythonSourceError(`line ${line}: an f-string replacement field is never closed`);
}

/** A value in a scanned statement: string literals (adjacent ones joined), or a `name[...]` subscript. */
export type ExpressionPart = { kind: "string"; value: string } | { kind: "subscript"; name: string; key: string } | { kind: "other"; text: string };

export interface StringAssignment {
  /** The innermost `def` the statement sits in, or null at module or class level. */
  scope: string | null;
  name: string;
  value: string;
  fString: boolean;
  line: number;
}

export interface DictAssignment {
  scope: string | null;
  name: string;
  /** String keys with string values (other entries are left out). */
  entries: Record<string, string>;
  line: number;
}

export interface ReplaceCall {
  scope: string | null;
  /** The first argument (e.g. "{{planning}}"). */
  target: string;
  /** The second argument, as its parts joined by `+`. */
  parts: ExpressionPart[];
  line: number;
}

export interface NumberEntry {
  scope: string | null;
  key: string;
  value: number;
  line: number;
}

export interface PythonPromptScan {
  strings: StringAssignment[];
  dicts: DictAssignment[];
  replaces: ReplaceCall[];
  /** `"key": number` entries of dict literals (e.g. a request's temperature). */
  numbers: NumberEntry[];
}

/** Splits tokens into logical lines, each with the column-free indentation level of its first token. */
function logicalLines(source: string, tokens: PythonToken[]): Array<{ indent: number; tokens: PythonToken[] }> {
  const lineIndent = source
    .replace(/\r\n?/gu, "\n")
    .split("\n")
    .map((text) => /^[ \t]*/u.exec(text)?.[0].replace(/\t/gu, "        ").length ?? 0);
  const lines: Array<{ indent: number; tokens: PythonToken[] }> = [];
  let current: PythonToken[] = [];
  for (const token of tokens) {
    if (token.kind === "newline") {
      if (current.length > 0) lines.push({ indent: lineIndent[(current[0] as PythonToken).line - 1] ?? 0, tokens: current });
      current = [];
    } else current.push(token);
  }
  return lines;
}

/** Adjacent string literals from `start` (Python joins them), or null when the token there is no string. */
function joinedStrings(tokens: readonly PythonToken[], start: number): { value: string; fString: boolean; end: number } | null {
  let index = start;
  let value = "";
  let fString = false;
  while (tokens[index]?.kind === "string") {
    const token = tokens[index] as Extract<PythonToken, { kind: "string" }>;
    value += token.value;
    fString ||= token.fString;
    index += 1;
  }
  return index === start ? null : { value, fString, end: index };
}

/** The parts of an expression `a + "b" + c["k"]` up to a closing bracket or comma at depth 0. */
function expressionParts(tokens: readonly PythonToken[], start: number): { parts: ExpressionPart[]; end: number } {
  const parts: ExpressionPart[] = [];
  let index = start;
  while (index < tokens.length) {
    const token = tokens[index] as PythonToken;
    if (token.kind === "op" && (token.value === ")" || token.value === ",")) break;
    if (token.kind === "op" && token.value === "+") {
      index += 1;
      continue;
    }
    const strings = joinedStrings(tokens, index);
    if (strings !== null) {
      parts.push({ kind: "string", value: strings.value });
      index = strings.end;
      continue;
    }
    const [open, key, close] = [tokens[index + 1], tokens[index + 2], tokens[index + 3]];
    if (token.kind === "name" && open?.kind === "op" && open.value === "[" && key?.kind === "string" && close?.kind === "op" && close.value === "]") {
      parts.push({ kind: "subscript", name: token.value, key: key.value });
      index += 4;
      continue;
    }
    // Anything else (a call, a name): kept as text up to the next + at this depth.
    let depth = 0;
    let text = "";
    while (index < tokens.length) {
      const inner = tokens[index] as PythonToken;
      if (inner.kind === "op" && "([{".includes(inner.value)) depth += 1;
      if (inner.kind === "op" && ")]}".includes(inner.value)) {
        if (depth === 0) break;
        depth -= 1;
      }
      if (depth === 0 && inner.kind === "op" && (inner.value === "+" || inner.value === ",")) break;
      text += inner.kind === "newline" ? "" : inner.value;
      index += 1;
    }
    parts.push({ kind: "other", text });
  }
  return { parts, end: index };
}

/** The statements of a Python file that can hold prompts. */
export function scanPythonPrompts(source: string): PythonPromptScan {
  const tokens = tokenizePython(source);
  const scan: PythonPromptScan = { strings: [], dicts: [], replaces: [], numbers: [] };
  const scopes: Array<{ indent: number; name: string | null }> = [];
  for (const { indent, tokens: statement } of logicalLines(source, tokens)) {
    while (scopes.length > 0 && (scopes.at(-1) as { indent: number }).indent >= indent) scopes.pop();
    const scope = [...scopes].reverse().find((entry) => entry.name !== null)?.name ?? null;
    const [first, second, third] = statement;
    const firstName = first?.kind === "name" ? first.value : "";
    if (firstName === "def" || (firstName === "async" && second?.kind === "name" && second.value === "def")) {
      const nameToken = firstName === "def" ? second : third;
      scopes.push({ indent, name: nameToken?.kind === "name" ? nameToken.value : null });
      continue;
    }
    if (firstName === "class") {
      scopes.push({ indent, name: null });
      continue;
    }
    if (first?.kind === "name" && second?.kind === "op" && second.value === "=") {
      const parenthesized = third?.kind === "op" && third.value === "(";
      const strings = joinedStrings(statement, parenthesized ? 3 : 2);
      const after = strings === null ? undefined : statement[strings.end];
      // The strings are the whole value: `x = "a" "b"` or `x = ("a" "b")`, not a tuple `x = ("a", "b")` nor `x = ("a") + y`.
      const whole = parenthesized ? after?.kind === "op" && after.value === ")" && strings!.end + 1 === statement.length : strings?.end === statement.length;
      if (strings !== null && whole) {
        scan.strings.push({ scope, name: first.value, value: strings.value, fString: strings.fString, line: first.line });
      }
      if (third?.kind === "op" && third.value === "{") scan.dicts.push({ scope, name: first.value, entries: dictEntries(statement, 3), line: first.line });
    }
    statement.forEach((token, position) => {
      const [name, open] = [statement[position + 1], statement[position + 2]];
      if (token.kind === "op" && token.value === "." && name?.kind === "name" && name.value === "replace" && open?.kind === "op" && open.value === "(") {
        const target = joinedStrings(statement, position + 3);
        if (target === null || statement[target.end]?.kind !== "op" || (statement[target.end] as { value: string }).value !== ",") return;
        scan.replaces.push({ scope, target: target.value, parts: expressionParts(statement, target.end + 1).parts, line: token.line });
      }
      const [colon, value] = [statement[position + 1], statement[position + 2]];
      if (token.kind === "string" && colon?.kind === "op" && colon.value === ":" && value?.kind === "number") {
        scan.numbers.push({ scope, key: token.value, value: Number(value.value.replace(/_/gu, "")), line: token.line });
      }
    });
  }
  return scan;
}

/** `"key": "value"` entries of a dict literal that starts after `{` at `start` (nested values skipped). */
function dictEntries(tokens: readonly PythonToken[], start: number): Record<string, string> {
  const entries: Record<string, string> = {};
  let index = start;
  let depth = 0;
  while (index < tokens.length) {
    const token = tokens[index] as PythonToken;
    if (token.kind === "op" && "([{".includes(token.value)) depth += 1;
    if (token.kind === "op" && ")]}".includes(token.value)) {
      if (depth === 0) break;
      depth -= 1;
    }
    if (depth === 0 && token.kind === "string") {
      const colon = tokens[index + 1];
      if (colon?.kind === "op" && colon.value === ":") {
        const value = joinedStrings(tokens, index + 2);
        const after = value === null ? undefined : tokens[value.end];
        if (value !== null && after?.kind === "op" && (after.value === "," || after.value === "}")) {
          entries[token.value] = value.value;
          index = value.end;
          continue;
        }
      }
    }
    index += 1;
  }
  return entries;
}
