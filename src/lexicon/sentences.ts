import { withoutQuotations } from "./detect-moves.js";

/** One sentence of a reply: its text, its own words (quotations blanked) and whether it quotes. */
export interface ReplySentence {
  text: string;
  /** The sentence with quoted passages replaced by " … " (what the agent says in its own words). */
  own: string;
  /** The sentence holds a quotation. */
  quotes: boolean;
}

/**
 * Where one sentence ends and the next begins: after sentence punctuation (English and Chinese,
 * with any closing quotes or brackets that follow it), at a line break, and after a closing
 * quotation mark followed by a capital letter (`“I was blamed” That was unfair` is two sentences:
 * a quote and a remark; in Chinese a quote runs on into its sentence, `“我没事”你说`). Semicolons end a sentence too: each side is a full
 * clause, and a reply often packs two moves around one.
 */
const BOUNDARY = /(?<=[.!?;…。！？；][”’"')\]」』）]*)\s+|(?<=[。！？；][”’"')\]」』）]*)|\n+|(?<=[”"])\s*(?=\p{Lu})/u;

/** BOUNDARY as `split` takes it, compiled once (`split` copies it and leaves its `lastIndex` alone). */
const BOUNDARY_SPLIT = new RegExp(BOUNDARY.source, "gu");

/** Splits a reply into sentences (English and Chinese punctuation), dropping empty pieces. */
export function splitSentences(reply: string): ReplySentence[] {
  const sentences: ReplySentence[] = [];
  for (const piece of reply.split(BOUNDARY_SPLIT)) {
    const text = piece.trim();
    if (text === "" || !/[\p{L}\p{N}]/u.test(text)) continue;
    const own = withoutQuotations(text);
    sentences.push({ text, own, quotes: own !== text });
  }
  return sentences;
}

/** Where a sentence divides into clauses: commas, semicolons, colons and dashes, and "but". */
const CLAUSE_BREAK = /[,;:，；：、]\s*|\s+[—–-]\s+|\s+but\s+/iu;

const CLAUSE_SPLIT = new RegExp(CLAUSE_BREAK.source, "giu");

/**
 * The clauses of a sentence of at least `minWords` words (Han characters count half), when it has
 * two or more; otherwise none. A long sentence often does two things ("being hurt by it is
 * completely fair, and whether showing it was right is a separate question").
 */
export function clausesOf(sentence: string, minWords = 3): string[] {
  const pieces = sentence
    .split(CLAUSE_SPLIT)
    .map((piece) => piece.trim())
    .filter((piece) => wordCount(piece) >= minWords);
  return pieces.length >= 2 ? pieces : [];
}

const HAN = /\p{Script=Han}/u;

function wordCount(text: string): number {
  // Without a Han character nothing is replaced and nothing counts half.
  if (!HAN.test(text)) return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const words = text.replace(/\p{Script=Han}/gu, " ").match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  return words + han / 2;
}

/**
 * The tails of a sentence that start at a capitalised word in its middle right after a word that
 * is neither capitalised nor a function word (`isFunctionWord`): "umbrella Whatever.",
 * "spreadsheet saxophone Come on, keep talking." That is where a reply glued of fragments hides
 * one sentence behind stray words; a name after a function word ("in Kraków", "from Bella") starts
 * none, nor do "I" and its contractions.
 */
export function capitalisedTails(sentence: string, isFunctionWord: (word: string) => boolean): string[] {
  const tails: string[] = [];
  const pattern = /(?<=(?:^|\s)(\p{Ll}[\p{L}'’]*)\s+)(?=\p{Lu})(?!I(?:['’]\p{L}+)?\b)/gu;
  for (const match of sentence.matchAll(pattern)) {
    const before = sentence.slice(0, match.index).trim().split(/\s+/).pop()!;
    if (!isFunctionWord(before.toLowerCase().replace(/’/g, "'"))) tails.push(sentence.slice(match.index).trim());
  }
  return tails;
}
