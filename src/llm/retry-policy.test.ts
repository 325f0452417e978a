import { describe, expect, it } from "vitest";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs, retryDelayMs } from "./retry-policy.js";

const policy = { retryBaseDelayMs: 500, retryMaxDelayMs: 30_000 };
const headers = (entries: Record<string, string>) => new Headers(entries);

describe("isRetryableStatus", () => {
  it("retries transient statuses only", () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe("backoffDelayMs (full jitter)", () => {
  it("draws uniformly below min(cap, base * 2^n)", () => {
    expect(backoffDelayMs(0, policy, () => 0.999)).toBe(499);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(2000);
    expect(backoffDelayMs(20, policy, () => 0.5)).toBe(15_000);
    expect(backoffDelayMs(5, policy, () => 0)).toBe(0);
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads delta-seconds", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(parseRetryAfterMs(headers({ "retry-after": "1.5" }), now)).toBe(1500);
  });

  it("reads an HTTP date relative to now, never negative", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfterMs(headers({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }), now)).toBe(0);
  });

  it("prefers OpenAI's retry-after-ms", () => {
    expect(parseRetryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
  });

  it("ignores absent or garbage values", () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({}), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  it("uses the server's wait, capped, else jittered back-off", () => {
    expect(retryDelayMs(0, 7000, policy, () => 0.5)).toBe(7000);
    expect(retryDelayMs(0, 3_600_000, policy, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(1, undefined, policy, () => 0.5)).toBe(500);
  });
});
