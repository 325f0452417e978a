/**
 * The offline user's reading skips work where it cannot change a result: text without a Han
 * character is not scanned for Han word by word (textSize, the clause word count), the sentence
 * and clause regular expressions are compiled once. Each helper must give what its former form
 * gave (written out below) on every move-corpus sentence, every validity-corpus reply, and texts
 * mixing scripts.
 */
import { describe, expect, it } from "vitest";
import { loadValidityCorpus } from "../src/agents/validity-corpus-agent.js";
import { withoutQuotations } from "../src/lexicon/detect-moves.js";
import { loadMoveCorpus } from "../src/lexicon/move-corpus.js";
import { clausesOf, splitSentences } from "../src/lexicon/sentences.js";
import { textSize } from "../src/simulated-user/read-reply.js";

function formerTextSize(text: string): number {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  let size = 0;
  for (const word of words) {
    const han = word.match(/\p{Script=Han}/gu)?.length ?? 0;
    size += han > 0 ? han / 2 + (word.length - han > 0 ? 1 : 0) : 1;
  }
  return size;
}

function formerWordCount(text: string): number {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const words = text.replace(/\p{Script=Han}/gu, " ").match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  return words + han / 2;
}

function formerClausesOf(sentence: string, minWords = 3): string[] {
  const pieces = sentence
    .split(new RegExp(/[,;:，；：、]\s*|\s+[—–-]\s+|\s+but\s+/iu.source, "giu"))
    .map((piece) => piece.trim())
    .filter((piece) => formerWordCount(piece) >= minWords);
  return pieces.length >= 2 ? pieces : [];
}

const FORMER_BOUNDARY = /(?<=[.!?;…。！？；][”’"')\]」』）]*)\s+|(?<=[。！？；][”’"')\]」』）]*)|\n+|(?<=[”"])\s*(?=\p{Lu})/u;
function formerSplitSentences(reply: string): Array<{ text: string; own: string; quotes: boolean }> {
  const sentences: Array<{ text: string; own: string; quotes: boolean }> = [];
  for (const piece of reply.split(new RegExp(FORMER_BOUNDARY.source, "gu"))) {
    const text = piece.trim();
    if (text === "" || !/[\p{L}\p{N}]/u.test(text)) continue;
    const own = withoutQuotations(text);
    sentences.push({ text, own, quotes: own !== text });
  }
  return sentences;
}

const corpusSentences = loadMoveCorpus().flatMap((voice) => Object.values(voice.corpus.sentences).flat());
const validityReplies = loadValidityCorpus().flatMap((file) => Object.values(file.replies).flat());
const mixed = [
  "我真的很难过, but I get it — 这不公平",
  "𠀀𠀁 two Extension-B characters",
  "你好",
  "it's “quoted” text; and “另一个” one",
  "",
  "...",
  "semi; colon: dash - but then, again",
];
const texts = [...corpusSentences, ...validityReplies, ...mixed];

describe("the reading's fast paths", () => {
  it("textSize gives the former size on every corpus sentence and reply, Han or not", () => {
    expect(texts.filter((text) => /\p{Script=Han}/u.test(text)).length).toBeGreaterThan(1000);
    for (const text of texts) expect(textSize(text)).toBe(formerTextSize(text));
  });

  it("clausesOf gives the former clauses (word counts with and without Han)", () => {
    let split = 0;
    for (const text of texts) {
      const clauses = clausesOf(text);
      expect(clauses).toEqual(formerClausesOf(text));
      if (clauses.length > 0) split += 1;
    }
    expect(split).toBeGreaterThan(500);
  });

  it("splitSentences gives the former sentences, called again and again with its one compiled pattern", () => {
    for (const reply of [...validityReplies, ...mixed, ...validityReplies])
      expect(splitSentences(reply)).toEqual(formerSplitSentences(reply));
  });
});
