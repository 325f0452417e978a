import { sharedContentWords } from "../lexicon/content-words.js";
import type { Detector } from "./detector.js";

export const FORMULAIC_PENALTY = -3;
/** A reply that reuses at least this many of the user's content words is grounded, stock phrase or not. */
export const FORMULAIC_MAX_SHARED = 1;

/**
 * Formulaic comfort (docs/offline-user.md, "Deterministic adjustments"): a reply built from stock comfort phrases that shares few
 * content words with the user's last message. A grounded reply that happens to contain a stock
 * phrase is not penalised: the penalty is for comfort that could be pasted under any message.
 */
export const formulaicComfort: Detector = ({ reply, userText, lexicon }) => {
  const phrases = lexicon.stockComfort.map((pattern) => pattern.exec(reply)?.[0]).filter((match): match is string => Boolean(match));
  if (phrases.length === 0) return null;
  const shared = sharedContentWords(reply, userText, lexicon);
  if (shared.length > FORMULAIC_MAX_SHARED) return null;
  return { id: "formulaic", value: FORMULAIC_PENALTY, evidence: phrases.join(" | ") };
};
