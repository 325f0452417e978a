import type { EndReason } from "../core/dialogue.js";
import { isCollapse, isSuccess } from "../core/emotion.js";
import type { Preset } from "../core/preset.js";

export interface EndRuleContext {
  emotion: number;
  /** Agent replies so far, including the one just played. */
  turnsPlayed: number;
  /** The user's structured decision to leave (a field of the simulator's output). */
  userLeft: boolean;
  /** The user's reply to the agent's reply just played (for presets that end on goodbye words). */
  userText: string;
  preset: Preset;
}

/** An end rule says why the dialogue ends now, or null to go on. */
export type EndRule = (context: EndRuleContext) => EndReason | null;

/** The goodbye word of the preset that the user's reply contains, or null. */
export function goodbyeWordIn(text: string, preset: Preset): string | null {
  return preset.goodbyeWords.find((word) => text.includes(word)) ?? null;
}

export const successRule: EndRule = ({ emotion, preset }) =>
  preset.endsOn.includes("success") && isSuccess(emotion, preset) ? "success" : null;
export const collapseRule: EndRule = ({ emotion, preset }) =>
  preset.endsOn.includes("collapse") && isCollapse(emotion, preset) ? "collapse" : null;
/** The user leaves: its structured decision, or (SAGE, RLVER) a goodbye word in its reply. */
export const userLeftRule: EndRule = ({ userLeft, userText, preset }) =>
  preset.endsOn.includes("user_left") && (userLeft || goodbyeWordIn(userText, preset) !== null) ? "user_left" : null;
export const turnLimitRule: EndRule = ({ turnsPlayed, preset }) => (turnsPlayed >= preset.maxTurns ? "max_turns" : null);

/**
 * In priority order: the emotion decides first, then the user, then the clock. Each rule applies
 * only where the preset lists it in `endsOn`; the turn limit always applies.
 */
export const DEFAULT_END_RULES: readonly EndRule[] = [successRule, collapseRule, userLeftRule, turnLimitRule];

export function endReasonOf(context: EndRuleContext, rules: readonly EndRule[] = DEFAULT_END_RULES): EndReason | null {
  for (const rule of rules) {
    const reason = rule(context);
    if (reason !== null) return reason;
  }
  return null;
}
