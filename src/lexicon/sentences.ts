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

/** Splits a reply into sentences (English and Chinese punctuation), dropping empty pieces. */
export function splitSentences(reply: string): ReplySentence[] {
  const sentences: ReplySentence[] = [];
  for (const piece of reply.split(new RegExp(BOUNDARY.source, "gu"))) {
    const text = piece.trim();
    if (text === "" || !/[\p{L}\p{N}]/u.test(text)) continue;
    const own = withoutQuotations(text);
    sentences.push({ text, own, quotes: own !== text });
  }
  return sentences;
}
