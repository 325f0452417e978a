/**
 * A dialogue's failure, thrown and as a value. A step throws `StepError { stage, cause }` when
 * something it called failed (the agent, the simulated user's opening, appraisal or reply), so every
 * driver knows where without wrapping the user itself; `dialogueErrorOf` turns what was thrown into
 * the record's `{ kind, stage, message, retryable }`. The run summarises errors by kind and stage
 * and stops early on a systematic one, so the kind is read off the cause, and the stage off the
 * StepError around it.
 */
import type { DialogueError, DialogueErrorStage } from "../core/dialogue.js";
import { AebError } from "../core/errors.js";
import { SimulatedUserError } from "../simulated-user/simulated-user.js";

/** The stages of an episode that call out (to the agent or the simulated user), in the order of a turn. */
export type StepStage = Extract<DialogueErrorStage, "opening" | "agent" | "appraisal" | "user_reply">;

/** How long one stage took and whether it succeeded, as told to an `onStage` hook. */
export interface StageTiming {
  stage: StepStage;
  seconds: number;
  ok: boolean;
}

/** A failure inside one stage of an episode: `cause` is what the agent or the simulated user threw. */
export class StepError extends AebError {
  override readonly name = "StepError";
  constructor(
    readonly stage: StepStage,
    override readonly cause: unknown,
  ) {
    super(`${stage.replace("_", " ")} failed: ${messageOf(cause)}`, { cause });
  }
}

/**
 * Runs one stage: its time goes to `onStage`, and a failure is rethrown as a StepError of this
 * stage (a StepError from a stage nested inside, such as an agent that plays an episode itself,
 * keeps its own, innermost stage).
 */
export async function inStage<T>(stage: StepStage, work: () => Promise<T>, onStage?: (timing: StageTiming) => void): Promise<T> {
  const started = onStage === undefined ? 0 : performance.now();
  try {
    const result = await work();
    onStage?.({ stage, seconds: (performance.now() - started) / 1000, ok: true });
    return result;
  } catch (error) {
    onStage?.({ stage, seconds: (performance.now() - started) / 1000, ok: false });
    throw error instanceof StepError ? error : new StepError(stage, error);
  }
}

/** A model call's failure (src/llm/errors.ts), read by shape: this layer does not import the client. */
function modelCallFailure(error: unknown): { kind: string; isRetryable: boolean } | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { kind, isRetryable } = error as { kind?: unknown; isRetryable?: unknown };
  return typeof kind === "string" && typeof isRetryable === "boolean" ? { kind, isRetryable } : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The structured error of a dialogue that failed with `error`: the stage from the StepError around it, the rest from its cause. */
export function dialogueErrorOf(thrown: unknown): DialogueError {
  const stage: DialogueErrorStage = thrown instanceof StepError ? thrown.stage : "unknown";
  const error = thrown instanceof StepError ? thrown.cause : thrown;
  const message = messageOf(error);
  const model = modelCallFailure(error);
  if (model !== undefined) return { kind: model.kind, stage, message, retryable: model.isRetryable };
  if (error instanceof Error && error.name === "ChatEnded") return { kind: "stopped", stage, message, retryable: false };
  // The simulator's answers stayed unusable after its retries: sampling again may give a usable one.
  if (error instanceof SimulatedUserError) return { kind: "unusable-output", stage, message, retryable: true };
  if (stage === "agent") return { kind: "agent-error", stage, message, retryable: false };
  return { kind: "unexpected", stage, message, retryable: false };
}
