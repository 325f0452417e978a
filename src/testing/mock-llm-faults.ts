/**
 * Failures the mock LLM server can inject, and which one fires on a request. Each reproduces a way
 * real servers and proxies fail (see mock-server.ts).
 */
import type { RandomFn } from "../llm/clock.js";

/**
 * When a fault fires: on the listed 1-based chat request numbers, with a
 * probability (seeded), or on every request when neither is given.
 */
export interface MockFaultTrigger {
  on?: readonly number[];
  probability?: number;
}

/** Failure injected into a chat request. The first matching fault wins. */
export type MockFault = MockFaultTrigger &
  (
    | {
        /** Answer with this HTTP status and an OpenAI-style error body. */
        type: "status";
        status: number;
        message?: string;
        /** Sent as the Retry-After header: seconds, or an HTTP date string. */
        retryAfter?: number | string;
      }
    | {
        /** Accept the request and never answer (no headers, no body). */
        type: "hang";
      }
    | {
        /** Send 200 headers (and `afterChunks` stream chunks), then go silent forever. */
        type: "stall-after-headers";
        afterChunks?: number;
        /** Send SSE comment lines at this interval while stalled (keeps sockets busy, carries no data). */
        keepAliveMs?: number;
      }
    | {
        /** Send `afterChunks` chunks (default 2), then destroy the socket. */
        type: "drop-mid-stream";
        afterChunks?: number;
      }
    | {
        /** End the body cleanly after `afterChunks` chunks (default 2): no finish reason, no [DONE]. */
        type: "truncated-stream";
        afterChunks?: number;
      }
    | {
        /**
         * After `afterChunks` chunks (default 1), send an in-stream `{"error": ...}`
         * event and end, as vLLM does on engine errors (plain JSON: an HTTP error).
         */
        type: "error-event";
        afterChunks?: number;
        /** Code carried in the error object (default 500). */
        code?: number;
        message?: string;
      }
    | {
        /** Answer normally but with empty content. */
        type: "empty-completion";
      }
  );

/** The first fault that fires on chat request number `n` (1-based), if any. */
export function pickFault(faults: readonly MockFault[], n: number, random: RandomFn): MockFault | undefined {
  for (const fault of faults) {
    if (fault.on !== undefined) {
      if (fault.on.includes(n)) return fault;
      continue;
    }
    if (fault.probability !== undefined) {
      if (random() < fault.probability) return fault;
      continue;
    }
    return fault;
  }
  return undefined;
}
