/**
 * The offline simulated user's first message for a scenario without an opening line (SAGE/RLVER
 * profiles without `first_talk`): the first event of the user's own story, told in the first
 * person, framed by the user's character type. Built from the scenario's own fields (persona name
 * and gender, background story, temperament) and the frames in data/offline-user/openings.yaml,
 * so every profile opens on its own situation; the frame is drawn with the dialogue's seed.
 */
import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { createRng, deriveSeed } from "../core/random.js";
import type { Language } from "../lexicon/lexicon.js";
import { narrativeLine, narrativePart } from "../scenarios/sage-profiles.js";
import type { Scenario } from "../scenarios/scenario-schema.js";

const FramesSchema = z.array(z.string().includes("{situation}", { message: "a frame must hold {situation}" })).min(1);
const OpeningLinesSchema = z.strictObject({
  /** The first-person pronoun that replaces the persona's name. */
  self: z.string().min(1),
  /** Frames by character type (the temperament's part before "：", e.g. SAGE's `负面型`). */
  byTemperament: z.record(z.string(), FramesSchema),
  /** Frames for any other character. */
  default: FramesSchema,
  /** Whole openings for a story with no sentence that can be told in the first person. */
  withoutSituation: z.array(z.string().min(1)).min(1),
});
export type OpeningLines = z.infer<typeof OpeningLinesSchema>;

export function loadOpeningLines(language: Language): OpeningLines {
  const file = loadDataFile(dataPath("offline-user", "openings.yaml"), z.strictObject({ zh: OpeningLinesSchema, en: OpeningLinesSchema }));
  return file[language];
}

/** The longest situation an opening quotes, in characters (zh) or words (en); longer ones are cut at a clause. */
const MAX_SITUATION_CHARS = 45;
const MAX_SITUATION_WORDS = 30;
/** How many of the story's first sentences are searched for one about the user. */
const CANDIDATE_SENTENCES = 4;

export function offlineOpening(scenario: Scenario, seed: number): string {
  const lines = loadOpeningLines(scenario.language);
  const rng = createRng(deriveSeed(seed, "opening"));
  const situation = firstPersonSituation(scenario, lines.self);
  if (situation === null) return rng.pick(lines.withoutSituation);
  const character = scenario.persona.temperament?.split(/[:：]/u)[0]?.trim() ?? "";
  const frames = lines.byTemperament[character] ?? lines.default;
  return rng.pick(frames).replace("{situation}", situation);
}

/**
 * The story's first event in the user's own voice: among the first narrative sentences (headings,
 * labels, lines about the game and self-descriptions skipped), the first that names the user, else
 * the first at all; the name becomes the first-person pronoun, and so does the user's own
 * gendered pronoun in Chinese. Null when the story has no such sentence.
 */
export function firstPersonSituation(scenario: Scenario, self: string): string | null {
  const zh = scenario.language === "zh";
  const candidates = storySentences(narrativePart(scenario.background), zh).slice(0, CANDIDATE_SENTENCES);
  const name = scenario.persona.name;
  const chosen = (name === undefined ? undefined : candidates.find((sentence) => sentence.includes(name))) ?? candidates[0];
  if (chosen === undefined) return null;
  let text = chosen;
  if (name !== undefined) text = zh ? text.replaceAll(name, self) : text.replaceAll(`${name}'s`, "my").replaceAll(name, self);
  if (zh) {
    const pronoun = /女/u.test(scenario.persona.gender ?? "") ? "她" : /男/u.test(scenario.persona.gender ?? "") ? "他" : undefined;
    // Only the singular pronoun: "他们"/"她们" are other people.
    if (pronoun !== undefined) text = text.replace(new RegExp(`${pronoun}(?!们)`, "gu"), self);
  }
  return clip(text, zh).replace(/[，,、：:；;\s]+$/u, "");
}

function storySentences(narrative: string, zh: boolean): string[] {
  const sentences: string[] = [];
  for (const raw of narrative.split("\n")) {
    const line = narrativeLine(raw);
    if (line === "" || /[:：]$/u.test(line)) continue;
    for (const sentence of line.split(zh ? /[。！？；!?;]/u : /(?<=[.!?;])\s+/u)) {
      // A leading connective ("然而，") only makes sense after the sentence before it.
      const trimmed = sentence
        .trim()
        .replace(/[.!?;]$/u, "")
        .replace(/^(然而|但是|可是|不过|同时|此外|因此|于是|而且|另外|However|But|Meanwhile)[，,]?\s*/u, "");
      if (usable(trimmed, zh)) sentences.push(trimmed);
    }
  }
  return sentences;
}

function usable(sentence: string, zh: boolean): boolean {
  if (/NPC|玩家|剧本|player|script/iu.test(sentence)) return false;
  if (zh) return (sentence.match(/\p{Script=Han}/gu)?.length ?? 0) >= 8 && !/是一(位|名|个)|\d+\s*岁|现年/u.test(sentence);
  return sentence.split(/\s+/u).length >= 4 && !/\d+-year-old|\b(is|was) an? [a-z]+ (who|with)\b/iu.test(sentence);
}

/** Cut a long sentence after the last clause that fits. */
function clip(sentence: string, zh: boolean): string {
  if (!zh) {
    const words = sentence.split(/\s+/u);
    if (words.length <= MAX_SITUATION_WORDS) return sentence;
    let clipped = "";
    for (const clause of sentence.split(/(?<=,)\s+/u)) {
      const next = clipped === "" ? clause : `${clipped} ${clause}`;
      if (next.split(/\s+/u).length > MAX_SITUATION_WORDS) break;
      clipped = next;
    }
    return clipped === "" ? words.slice(0, MAX_SITUATION_WORDS).join(" ") : clipped;
  }
  if ([...sentence].length <= MAX_SITUATION_CHARS) return sentence;
  let clipped = "";
  for (const clause of sentence.split(/(?<=[，,])/u)) {
    if ([...clipped].length + [...clause].length > MAX_SITUATION_CHARS) break;
    clipped += clause;
  }
  return clipped === "" ? [...sentence].slice(0, MAX_SITUATION_CHARS).join("") : clipped;
}
