/**
 * A trainer's side of the environment for durability tests: plays episodes with a fixed reply,
 * sends a failed step again unchanged (the server replays it from the same token), and tells which
 * episodes the server acknowledged (answered their last step `done: true`).
 */
import type { Message, ResetResponse, StepResponse } from "../../src/server/api-schemas.js";

/** POSTs a JSON body; resolves with the status and the parsed body, rejects on a connection error. */
export type Send = (path: string, body: unknown) => Promise<{ status: number; body: unknown }>;

export const REPLY = "That sounds really hard. Tell me more about what happened.";

export function fetchSender(baseUrl: () => string): Send {
  return async (path, body) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: response.status, body: await response.json() };
  };
}

export interface PlayedEpisode {
  episodeId: string;
  /** The server answered the last step `done: true`. */
  acknowledged: boolean;
  /** The last step sent (to send again later), when it was not acknowledged. */
  pending?: unknown;
  /** Answers other than 200, and connection errors. */
  failures: Array<number | string>;
}

/**
 * Plays one episode. A step that fails is sent again, unchanged, while `retry(attempt)` says so
 * (waiting 100 ms between tries); when it says no, the episode is returned unacknowledged with
 * the step still to send.
 */
export async function playEpisode(
  send: Send,
  reset: Record<string, unknown> & { episodeId: string },
  retry: (attempt: number) => boolean,
): Promise<PlayedEpisode> {
  const failures: Array<number | string> = [];
  const call = async (path: string, body: unknown): Promise<unknown> => {
    for (let attempt = 0; ; attempt += 1) {
      let failure: number | string;
      try {
        const answer = await send(path, body);
        if (answer.status === 200) return answer.body;
        failure = answer.status;
      } catch (error) {
        failure = (error as Error).message;
      }
      failures.push(failure);
      if (!retry(attempt)) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const started = (await call("/v1/reset", reset)) as ResetResponse | undefined;
  if (started === undefined) return { episodeId: reset.episodeId, acknowledged: false, failures };
  let state: { token: string; messages: Message[] } = { token: started.token, messages: started.messages };
  for (;;) {
    const body = { ...state, reply: REPLY };
    const step = (await call("/v1/step", body)) as StepResponse | undefined;
    if (step === undefined) return { episodeId: reset.episodeId, acknowledged: false, pending: body, failures };
    if (step.done) return { episodeId: reset.episodeId, acknowledged: true, failures };
    state = {
      token: step.token,
      messages: [...state.messages, { role: "assistant", content: REPLY }, { role: "user", content: step.message }],
    };
  }
}

/** Sends a step until it is answered `done: true` (or `attempts` run out). */
export async function finishStep(send: Send, body: unknown, attempts = 100): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    try {
      const answer = await send("/v1/step", body);
      if (answer.status === 200) return (answer.body as StepResponse).done;
    } catch {
      // Not listening yet: try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
