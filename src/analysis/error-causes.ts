/**
 * The dialogues that ended in error, grouped by cause (kind and stage), most frequent first, each
 * with one example: what a person needs to see why a run failed without opening dialogues.jsonl.
 */
import type { DialogueError } from "../core/dialogue.js";
import type { DialogueRow } from "../metrics/dialogue-row.js";
import type { ErrorCause } from "./summary-schema.js";

/** The causes of the rows in error; rows in id order give the first dialogue of each cause as its example. */
export function errorCauses(rows: readonly DialogueRow[]): ErrorCause[] {
  const causes = new Map<string, ErrorCause>();
  for (const row of rows) {
    if (row.status !== "error") continue;
    const error: DialogueError = row.error ?? { kind: "unexpected", stage: "unknown", message: "(no message recorded)", retryable: false };
    const key = `${error.kind}\u0000${error.stage}`;
    const cause = causes.get(key);
    if (cause === undefined)
      causes.set(key, {
        kind: error.kind,
        stage: error.stage,
        count: 1,
        retryable: error.retryable,
        example: { dialogueId: row.id, message: error.message },
      });
    else cause.count += 1;
  }
  // Most frequent first; ties in the order their first dialogue comes (the rows' order).
  return [...causes.values()].sort((a, b) => b.count - a.count);
}
