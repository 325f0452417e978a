/**
 * Reading free-text simulator answers written as tagged sections, the format SAGE's and RLVER's
 * simulators (and the AEB paper's) ask for:
 *
 *     Content:
 *     [what the listener meant]
 *     Change:
 *     -3
 *
 * A section starts at a line that begins with one of the expected field names and a colon
 * (markdown decoration such as `**Change:**` or `## Change:`, a full-width colon `：` and text on
 * the same line are all accepted) and runs to the next such line. When a field occurs more than
 * once the last occurrence counts (a model that first echoes the format and then fills it in is
 * read by what it filled in, as SAGE's `split(...)[-1]` reads it). Brackets and quotes around a
 * section are removed. A missing or empty field is an error, never an empty default.
 */
import type { HidVerdict } from "../core/dialogue.js";
import type { ParsedAnswer } from "../llm/structured-output.js";

export type TaggedSections = Record<string, string>;

/** Markdown decoration a header may carry: `#`, `*`, `_`, `>` and spaces before the name; `*`/`_` after it. */
const HEADER_DECORATION_BEFORE = "[\\s#>*_-]*";
const HEADER_DECORATION_AFTER = "[\\s*_]*";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface HeaderAt {
  field: string;
  /** Offset where the header line starts. */
  lineStart: number;
  /** Offset where the section's content starts (after the colon). */
  contentStart: number;
}

/** Every header line of the expected fields, in order of appearance. */
function headersIn(text: string, fields: readonly string[]): HeaderAt[] {
  const names = fields.map(escapeRegExp).join("|");
  const header = new RegExp(`^${HEADER_DECORATION_BEFORE}(${names})${HEADER_DECORATION_AFTER}[:：]`, "gimu");
  const found: HeaderAt[] = [];
  for (const match of text.matchAll(header)) {
    const written = (match[1] as string).toLowerCase();
    const field = fields.find((candidate) => candidate.toLowerCase() === written) as string;
    found.push({ field, lineStart: match.index, contentStart: match.index + match[0].length });
  }
  return found;
}

/** Brackets, quotes and markdown emphasis around a section's text, removed. */
export function cleanSection(text: string): string {
  let cleaned = text.replace(/\r/g, "").trim();
  for (;;) {
    const before = cleaned;
    cleaned = cleaned.replace(/^\*+|\*+$/g, "").trim();
    if (/^\[[^[\]]*\]$/u.test(cleaned)) cleaned = cleaned.slice(1, -1).trim();
    if (/^[“"「『][\s\S]*[”"」』]$/u.test(cleaned)) cleaned = cleaned.slice(1, -1).trim();
    if (cleaned === before) return cleaned;
  }
}

/**
 * The sections of an answer, by field. Fields listed in `optional` may be absent; every other
 * field must be present with some text, else the error names what is missing.
 */
export function readTaggedSections(
  text: string,
  fields: readonly string[],
  optional: readonly string[] = [],
): ParsedAnswer<TaggedSections> {
  const headers = headersIn(text, fields);
  const sections: TaggedSections = {};
  headers.forEach((header, index) => {
    const next = headers[index + 1];
    sections[header.field] = cleanSection(text.slice(header.contentStart, next === undefined ? text.length : next.lineStart));
  });
  const missing = fields.filter((field) => !optional.includes(field) && sections[field] === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      error: `the answer has no ${missing.map((field) => `"${field}:"`).join(", ")} section${missing.length > 1 ? "s" : ""}; write each field name on its own line followed by a colon, then its content`,
    };
  }
  const empty = fields.filter((field) => !optional.includes(field) && sections[field] === "");
  if (empty.length > 0)
    return { ok: false, error: `the ${empty.map((field) => `"${field}:"`).join(", ")} section${empty.length > 1 ? "s are" : " is"} empty` };
  return { ok: true, value: sections };
}

/** Signs and digits as models write them: full-width and typographic minus and plus signs. */
function normaliseNumberText(text: string): string {
  return text
    .replace(/[−–—－]/gu, "-")
    .replace(/＋/gu, "+")
    .replace(/[０-９]/gu, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xfee0));
}

/**
 * The signed change in a `Change:` section: its first number, which must be an integer (SAGE reads
 * the first signed integer of the section). "+3", "-5", "[+2]", "变化：-4", "−3 (a small drop)" read;
 * a section without a number, or whose first number is not an integer, is an error.
 */
export function readChange(section: string, field = "Change"): ParsedAnswer<number> {
  const match = /([+-]?)\s*(\d+(?:\.\d+)?)/u.exec(normaliseNumberText(section));
  if (match === null)
    return {
      ok: false,
      error: `the "${field}:" section has no number: "${section.slice(0, 60)}"; write the change as one signed integer, e.g. -3 or +2`,
    };
  const digits = match[2] as string;
  if (digits.includes(".")) return { ok: false, error: `the "${field}:" section must be an integer, got ${match[1]}${digits}` };
  const value = Number(`${match[1]}${digits}`);
  return { ok: true, value: Object.is(value, -0) ? 0 : value };
}

/**
 * The AEB paper's reading of a free-text TargetCompletion as a HID verdict (its `_norm_completion`):
 * lower-cased and trimmed, "partial" or "partly" anywhere gives partial; else a text that starts
 * with "yes" or contains " yes" gives yes; anything else, empty included, gives no.
 */
export function normaliseTargetCompletion(text: string): HidVerdict {
  const lowered = text.trim().toLowerCase();
  if (lowered === "") return "no";
  if (lowered.includes("partial") || lowered.includes("partly")) return "partial";
  if (lowered.startsWith("yes") || lowered.includes(" yes")) return "yes";
  return "no";
}
