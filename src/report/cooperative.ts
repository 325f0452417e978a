/**
 * Cooperative dialogues in the reports. A SAGE/RLVER profile (type `cooperative`, whether played
 * by `aeb run` or imported from a SAGE result file) is an honest user with a hidden theme: it has
 * no manipulation turn, so the reports never mark one on it, never split it before/after a
 * manipulation, and name it for what it is.
 */

/** The trajectory type of SAGE/RLVER profiles (core/trajectory-type.ts). */
export const COOPERATIVE_TYPE = "cooperative";

/** How the reports name a cooperative dialogue's kind (the viewer says the same). */
export const COOPERATIVE_LABEL = "cooperative user (SAGE/RLVER profile)";

export function isCooperative(type: string): boolean {
  return type === COOPERATIVE_TYPE;
}

/** A dialogue's kind as the reports show it: the trajectory type, or {@link COOPERATIVE_LABEL}. */
export function dialogueKindLabel(type: string): string {
  return isCooperative(type) ? COOPERATIVE_LABEL : type;
}
