import type { Detector } from "./detector.js";

/** A reply with nothing the user could read: only white space or invisible format characters. */
export function isEmptyReply(reply: string): boolean {
  return reply.replace(/[\s\p{Cf}]/gu, "") === "";
}

/**
 * Empty reply: the visible reply is empty once think handling is done (a completion that was only a
 * think block, an unclosed `<think>`, white space). It is a scored turn, not an error: excluding it
 * would flatter the model under test, and an RL policy must be penalised for saying nothing. Like
 * injection, the value here is a marker: the episode step forces the whole change to -D (or -10
 * where the preset does not clamp). The simulated user still answers the silence.
 */
export const emptyReply: Detector = ({ reply }) =>
  isEmptyReply(reply) ? { id: "empty_reply", value: 0, evidence: "the visible reply is empty" } : null;
