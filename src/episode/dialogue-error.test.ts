/**
 * A dialogue's error as a value: the kind read off what was thrown, the stage off the StepError
 * around it, stage timings told to `onStage`, and old records' "Name: message" strings still read.
 */
import { describe, expect, it } from "vitest";
import { DialogueRecordSchema } from "../core/dialogue.js";
import { ModelHttpError, ModelTimeoutError } from "../llm/errors.js";
import { SimulatedUserError } from "../simulated-user/simulated-user.js";
import { dialogueErrorOf, inStage, StepError, type StageTiming } from "./dialogue-error.js";

async function thrownAt(stage: Parameters<typeof inStage>[0], error: unknown): Promise<unknown> {
  try {
    await inStage(stage, () => Promise.reject(error));
  } catch (caught) {
    return caught;
  }
  throw new Error("inStage swallowed the error");
}

describe("dialogueErrorOf", () => {
  it("takes a model call's kind and retryability, and the stage it was thrown in", async () => {
    const unauthorised = new ModelHttpError("HTTP 401", {
      endpoint: "http://localhost:8000/v1",
      model: "m",
      isRetryable: false,
      status: 401,
    });
    const error = dialogueErrorOf(await thrownAt("agent", unauthorised));
    expect(error).toEqual({ kind: "http", stage: "agent", message: unauthorised.message, retryable: false });
    expect(
      dialogueErrorOf(await thrownAt("appraisal", new ModelTimeoutError("no reply", { endpoint: "e", model: "m", phase: "total" }))),
    ).toMatchObject({ kind: "timeout", stage: "appraisal", retryable: true });
  });

  it("keeps the innermost stage, names unusable simulator output and failing code agents", async () => {
    const inner = await thrownAt("user_reply", new SimulatedUserError("reply output unusable"));
    expect(dialogueErrorOf(await thrownAt("agent", inner))).toMatchObject({
      kind: "unusable-output",
      stage: "user_reply",
      retryable: true,
    });
    expect(dialogueErrorOf(await thrownAt("agent", new TypeError("returned number")))).toEqual({
      kind: "agent-error",
      stage: "agent",
      message: "returned number",
      retryable: false,
    });
    expect(dialogueErrorOf("a string")).toEqual({ kind: "unexpected", stage: "unknown", message: "a string", retryable: false });
  });

  it("throws a StepError naming the stage, with the original error as its cause, and times each stage", async () => {
    const timings: StageTiming[] = [];
    const cause = new SimulatedUserError("no Change: section");
    const thrown = await inStage(
      "appraisal",
      () => Promise.reject(cause),
      (timing) => timings.push(timing),
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(StepError);
    expect(thrown).toMatchObject({ stage: "appraisal", cause, message: "appraisal failed: no Change: section" });
    expect(
      await inStage(
        "user_reply",
        () => Promise.resolve("fine"),
        (timing) => timings.push(timing),
      ),
    ).toBe("fine");
    expect(timings.map(({ stage, ok }) => [stage, ok])).toEqual([
      ["appraisal", false],
      ["user_reply", true],
    ]);
    expect(timings.every((timing) => timing.seconds >= 0)).toBe(true);
  });

  it("reads a record written with the old 'Name: message' error string", () => {
    const old = {
      id: "a/x/0",
      condition: "a",
      scenarioId: "x",
      type: "escalation",
      repeat: 0,
      seed: 1,
      status: "error",
      endReason: "error",
      error: 'ModelHttpError: model "m" at http://h/v1: HTTP 404',
      preset: "aeb",
      manipulationTurn: 2,
      opening: { text: "hi", emotion: 50 },
      turns: [],
      final: { emotion: 50, fs: 0.5 },
    };
    expect(DialogueRecordSchema.parse(old).error).toEqual({
      kind: "unexpected",
      stage: "unknown",
      message: 'model "m" at http://h/v1: HTTP 404',
      retryable: false,
    });
  });
});
