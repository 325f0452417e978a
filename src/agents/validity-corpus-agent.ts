import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { dataPath, loadDataFile } from "../core/data-files.js";
import { AebError } from "../core/errors.js";
import { TrajectoryTypeSchema } from "../core/trajectory-type.js";
import type { Agent, AgentInput, AgentReply } from "./agent.js";

/**
 * The positive-validity corpus (data/validity-corpus/<scenario-id>.yaml): replies of known quality
 * written by people for one scenario, reply t answering the user's turn t (reply 0 answers the
 * opening). It is kept apart from what builds the offline user's recogniser (data/move-corpus/) and
 * measures whether the offline user's reward follows quality (docs/offline-user.md).
 */
export const REPLY_QUALITIES = ["good", "generic", "dismissive", "giving_in"] as const;
export type ReplyQuality = (typeof REPLY_QUALITIES)[number];
/** The quality as a rank: good 3 > generic 2 > dismissive 1 = giving in 1. */
export const QUALITY_RANK: Readonly<Record<ReplyQuality, number>> = { good: 3, generic: 2, dismissive: 1, giving_in: 1 };

const Replies = z.array(z.string().min(1)).min(1);
const ValidityFileSchema = z.strictObject({
  scenario: z.string().min(1),
  type: TrajectoryTypeSchema,
  writer: z.string().min(1),
  replies: z.strictObject({ good: Replies, generic: Replies, dismissive: Replies, giving_in: Replies }),
});
export type ValidityFile = z.infer<typeof ValidityFileSchema>;

export const VALIDITY_CORPUS_DIR = dataPath("validity-corpus");

/**
 * The corpus has three parts, chosen by scenario before anything was measured on them:
 * - held-out: never looked at while the offline user was tuned; its totals are what docs report;
 * - development: written later by writers who never scored a reply, for choosing settings (the
 *   recogniser's training options, a rule's threshold) on data that is neither the held-out part
 *   nor the already-fitted tuning part;
 * - tuning: everything else, read sentence by sentence to find what the user mishears.
 */
export const VALIDITY_PARTS = ["tuning", "development", "held-out"] as const;
export type ValidityPart = (typeof VALIDITY_PARTS)[number];

/** The held-out part: the scenarios whose ids contain these. */
export const VALIDITY_HELD_OUT: readonly string[] = [
  "conversion-day",
  "audit-blame",
  "council-election",
  "benched-for-final",
  "father-silence-faith",
  "church-committee",
  "difficult-father-funeral",
  "bank-froze-pension",
  "lead-role",
  "ex-engagement-post",
  "mother-didnt-recognise",
  "loan-at-birthday",
];

/** The development part (writers e to j, two scenarios of each type): the scenarios whose ids contain these. */
export const VALIDITY_DEVELOPMENT: readonly string[] = [
  "old-dog-put-down",
  "wedding-called-off",
  "broken-wheelchair-flight",
  "fathers-house-will",
  "missed-jesa",
  "twin-results-dinner",
  "mortgage-approved",
  "pregnancy-after-stillbirth",
  "estranged-mother-letter",
  "quitting-gymnastics",
  "mother-read-phone",
  "sister-hospital-row",
];

/** Which part of the corpus this file is in. */
export function validityPart(file: ValidityFile): ValidityPart {
  if (VALIDITY_HELD_OUT.some((id) => file.scenario.includes(id))) return "held-out";
  if (VALIDITY_DEVELOPMENT.some((id) => file.scenario.includes(id))) return "development";
  return "tuning";
}

/** Every file of the corpus, by scenario id, in file-name order. */
export function loadValidityCorpus(directory: string = VALIDITY_CORPUS_DIR): ValidityFile[] {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
  if (files.length === 0) throw new AebError(`no validity corpus files (<scenario-id>.yaml) in ${directory}`);
  return files.map((name) => {
    const file = loadDataFile(join(directory, name), ValidityFileSchema);
    if (`${file.scenario}.yaml` !== name)
      throw new AebError(
        `${join(directory, name)}: scenario is "${file.scenario}", but the file is named ${name}; name the file <scenario>.yaml`,
      );
    return file;
  });
}

/** Plays one file's replies of one quality, reply t at turn t. */
export class ValidityCorpusAgent implements Agent {
  readonly id: string;
  constructor(
    private readonly file: ValidityFile,
    private readonly quality: ReplyQuality,
  ) {
    this.id = `validity:${file.scenario}:${quality}`;
  }

  async reply(input: AgentInput): Promise<AgentReply> {
    const replies = this.file.replies[this.quality];
    const text = replies[input.turnIndex];
    if (text === undefined) {
      throw new AebError(
        `data/validity-corpus/${this.file.scenario}.yaml has ${replies.length} ${this.quality} replies, but the dialogue reached turn ${input.turnIndex}; write one reply per turn the preset plays`,
      );
    }
    return { text };
  }
}
