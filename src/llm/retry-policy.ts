/**
 * Which failures are retried, and how long to wait before the next attempt.
 *
 * Why these rules:
 * - 408, 409, 429 and 5xx are transient by definition (timeout, conflict,
 *   rate limit, overload); 400/401/403/404/422 describe the request itself and
 *   would fail identically on every retry, burning quota and time.
 * - Back-off uses "full jitter" (a uniform draw in [0, min(cap, base*2^n)]):
 *   when hundreds of dialogues hit a 429 together, jitter spreads their
 *   retries instead of stampeding the server in synchronised waves.
 * - A server's own `Retry-After` (or OpenAI's `retry-after-ms`) wins over the
 *   computed back-off, capped by `retryMaxDelayMs` so a misconfigured proxy
 *   cannot park a run for an hour.
 */
import type { RandomFn } from "./clock.js";

/** Statuses worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface BackoffPolicy {
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
}

/** Full-jitter exponential back-off for retry number `retryIndex` (0 for the first retry). */
export function backoffDelayMs(retryIndex: number, policy: BackoffPolicy, random: RandomFn): number {
  const ceiling = Math.min(policy.retryMaxDelayMs, policy.retryBaseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/** Minimal header accessor (satisfied by the WHATWG `Headers` class). */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Server-requested wait in milliseconds, or undefined when absent/unparseable.
 * Reads `retry-after-ms` (OpenAI), then `Retry-After` as delta-seconds or as
 * an HTTP date relative to `nowMs`. Negative waits become 0.
 */
export function parseRetryAfterMs(headers: HeaderReader | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value)) return Math.max(0, value);
  }
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return undefined;
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(0, Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Delay before retry number `retryIndex`: the server's Retry-After when it
 * sent one (capped), otherwise full-jitter back-off.
 */
export function retryDelayMs(retryIndex: number, retryAfterMs: number | undefined, policy: BackoffPolicy, random: RandomFn): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.retryMaxDelayMs);
  return backoffDelayMs(retryIndex, policy, random);
}
