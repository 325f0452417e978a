import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ModelCallError,
  ModelConnectionError,
  ModelEmptyCompletionError,
  ModelHttpError,
  ModelProbeError,
  ModelTimeoutError,
  sanitizeCause,
} from "./errors.js";

const where = { endpoint: "http://gpu-1:8000/v1", model: "qwen3-8b", role: "judge" };

describe("ModelCallError", () => {
  it("names the endpoint, model and role in its message", () => {
    const error = new ModelHttpError("HTTP 503: overloaded", { ...where, status: 503, isRetryable: true });
    expect(error.message).toBe('model "qwen3-8b" (role judge) at http://gpu-1:8000/v1: HTTP 503: overloaded');
    expect(error).toMatchObject({ name: "ModelHttpError", kind: "http", status: 503, isRetryable: true });
  });

  it("redacts secrets from the message and from the cause chain", () => {
    const secret = "sk-secret-123";
    const cause = new Error(`upstream said Bearer ${secret}`, { cause: new Error(`inner ${secret}`) });
    const error = new ModelConnectionError(`echo ${secret}`, { ...where, secrets: [secret], cause });
    expect(error.message).not.toContain(secret);
    expect(inspect(error, { depth: 10 })).not.toContain(secret);
  });

  it("isInstance recognises the family and each kind, without instanceof", () => {
    const timeout = new ModelTimeoutError("slow", { ...where, phase: "idle" });
    expect(ModelCallError.isInstance(timeout)).toBe(true);
    expect(ModelTimeoutError.isInstance(timeout)).toBe(true);
    expect(ModelHttpError.isInstance(timeout)).toBe(false);
    expect(ModelCallError.isInstance(new Error("plain"))).toBe(false);
    expect(ModelCallError.isInstance({ kind: "timeout" })).toBe(false);
    expect(ModelCallError.isInstance(null)).toBe(false);
  });

  it("fixes retryability by kind where the kind decides it", () => {
    expect(new ModelTimeoutError("t", { ...where, phase: "total" }).isRetryable).toBe(true);
    expect(new ModelConnectionError("c", where).isRetryable).toBe(true);
    expect(new ModelEmptyCompletionError("e", { ...where, finishReason: "stop" }).isRetryable).toBe(true);
    expect(new ModelEmptyCompletionError("e", { ...where, finishReason: "length" }).isRetryable).toBe(false);
  });

  it("markExhausted records the attempts in the message", () => {
    const error = new ModelConnectionError("refused", where).markExhausted(5);
    expect(error.attempts).toBe(5);
    expect(error.message).toMatch(/\(gave up after 5 attempts\)$/);
  });

  it("ModelProbeError lists every failing endpoint", () => {
    const error = new ModelProbeError(
      [
        { endpoint: "http://a/v1", reason: "unreachable (ECONNREFUSED)" },
        { endpoint: "http://b/v1", reason: 'does not serve model "qwen3-8b"' },
      ],
      { model: "qwen3-8b" },
    );
    expect(error.endpoint).toBe("http://a/v1, http://b/v1");
    expect(error.message).toContain("http://a/v1: unreachable (ECONNREFUSED)");
    expect(error.message).toContain("http://b/v1: does not serve");
    expect(error.isRetryable).toBe(false);
  });
});

describe("sanitizeCause", () => {
  it("keeps name and code so callers can still tell ECONNRESET from ECONNREFUSED", () => {
    const original = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", name: "SocketError" });
    const copy = sanitizeCause(original, []) as Error & { code?: string };
    expect(copy).not.toBe(original);
    expect(copy).toMatchObject({ name: "SocketError", code: "ECONNRESET", message: "read ECONNRESET" });
  });
});
