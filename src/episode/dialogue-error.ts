/**
 * A dialogue's failure as a value: what kind of failure, at which stage of the turn, whether a
 * rerun can help. The run summarises errors by kind and stage and stops early on a systematic
 * one, so the kind must be read off the thrown error, and the stage off where it was thrown.
 */
import type { DialogueError, DialogueErrorStage } from "../core/dialogue.js";
import { SimulatedUserError } from "../simulated-user/simulated-user.js";

const STAGE: unique symbol = Symbol.for("aeb.episode.stage") as never;

/** Marks an error with the stage it was thrown in (the first mark wins); the error itself is rethrown unchanged. */
export async function atStage<T>(stage: DialogueErrorStage, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (typeof error === "object" && error !== null && !(STAGE in error) && Object.isExtensible(error)) Object.defineProperty(error, STAGE, { value: stage, enumerable: false });
    throw error;
  }
}

/** A model call's failure (src/llm/errors.ts), read by shape: this layer does not import the client. */
function modelCallFailure(error: unknown): { kind: string; isRetryable: boolean } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { kind, isRetryable } = error as { kind?: unknown; isRetryable?: unknown };
  return typeof kind === "string" && typeof isRetryable === "boolean" ? { kind, isRetryable } : undefined;
}

/** The structured error of a dialogue that failed with `error` (thrown in the stage `atStage` marked). */
export function dialogueErrorOf(error: unknown): DialogueError {
  const stage = typeof error === "object" && error !== null && STAGE in error ? (error as { [STAGE]: DialogueErrorStage })[STAGE] : "unknown";
  const message = error instanceof Error ? error.message : String(error);
  const model = modelCallFailure(error);
  if (model !== undefined) return { kind: model.kind, stage, message, retryable: model.isRetryable };
  if (error instanceof Error && error.name === "ChatEnded") return { kind: "stopped", stage, message, retryable: false };
  // The simulator's answers stayed unusable after its retries: sampling again may give a usable one.
  if (error instanceof SimulatedUserError) return { kind: "unusable-output", stage, message, retryable: true };
  if (stage === "agent") return { kind: "agent-error", stage, message, retryable: false };
  return { kind: "unexpected", stage, message, retryable: false };
}
