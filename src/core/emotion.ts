import type { Preset } from "./preset.js";

/** Emotion states (docs/fidelity.md); the state steers the user's tone. */
export type EmotionState = "S" | "A" | "B" | "C" | "F";

export function emotionState(emotion: number): EmotionState {
  if (emotion >= 100) return "S";
  if (emotion >= 70) return "A";
  if (emotion >= 40) return "B";
  if (emotion >= 10) return "C";
  return "F";
}

export function clampEmotion(value: number): number {
  return Math.min(100, Math.max(0, Math.round(value)));
}

/**
 * Applies one turn's change: the simulator's change plus the deterministic adjustments,
 * clamped to [-D, +D] where the preset clamps, then the emotion clamped to [0, 100].
 */
export function applyChange(
  emotion: number,
  simulatorDelta: number,
  adjustmentTotal: number,
  preset: Preset,
): { emotion: number; delta: number } {
  let change = simulatorDelta + adjustmentTotal;
  if (preset.clamp !== null) change = Math.max(-preset.clamp, Math.min(preset.clamp, change));
  const next = clampEmotion(emotion + change);
  return { emotion: next, delta: next - emotion };
}

export function isSuccess(emotion: number, preset: Preset): boolean {
  return emotion >= preset.success;
}

export function isCollapse(emotion: number, preset: Preset): boolean {
  return preset.failure.op === "<" ? emotion < preset.failure.value : emotion <= preset.failure.value;
}
