import type { EndReason } from "../core/dialogue.js";
import { isCollapse, isSuccess } from "../core/emotion.js";
import type { Preset } from "../core/preset.js";

export interface EndRuleContext {
  emotion: number;
  /** Turns completed, including the one just played. */
  turnsPlayed: number;
  userLeft: boolean;
  preset: Preset;
}

/** An end rule says why the dialogue ends now, or null to go on. */
export type EndRule = (context: EndRuleContext) => EndReason | null;

export const successRule: EndRule = ({ emotion, preset }) => (isSuccess(emotion, preset) ? "success" : null);
export const collapseRule: EndRule = ({ emotion, preset }) => (isCollapse(emotion, preset) ? "collapse" : null);
export const userLeftRule: EndRule = ({ userLeft }) => (userLeft ? "user_left" : null);
export const turnLimitRule: EndRule = ({ turnsPlayed, preset }) => (turnsPlayed >= preset.maxTurns ? "max_turns" : null);

/** Spec section 1, in priority order: the emotion decides first, then the user, then the clock. */
export const DEFAULT_END_RULES: readonly EndRule[] = [successRule, collapseRule, userLeftRule, turnLimitRule];

export function endReasonOf(context: EndRuleContext, rules: readonly EndRule[] = DEFAULT_END_RULES): EndReason | null {
  for (const rule of rules) {
    const reason = rule(context);
    if (reason !== null) return reason;
  }
  return null;
}
