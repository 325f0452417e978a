/**
 * Run directories for the viewer's tests: an offline run as `aeb run` writes it, and the same
 * dialogues edited into the cases a real run of the reference agents does not have (a second ECS
 * judge that disagrees, a cooperative dialogue with think text and an unappraised last reply, hostile
 * and non-ASCII text written with \u escapes, a later judgement in judgements.jsonl).
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../../src/core/dialogue.js";

/** Text that would run if it were ever treated as markup. */
export const HOSTILE = '<img src=x onerror="window.__pwned = true">';
/** The dialogue (by position) made cooperative in the edited run. */
export const COOPERATIVE_ID_INDEX = 0;
/** The think text given to its first reply. */
export const THINK_TEXT = "The user sounds torn; name both feelings without choosing one.";

/** JSON as a writer that escapes every non-ASCII character would write it (Python's json.dumps). */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Writes the edited copy of `source` into `dir` (no summary.json, no run.json). */
export function makeEditedRun(source: readonly DialogueRecord[], dir: string): void {
  mkdirSync(dir, { recursive: true });
  const lines = source.map((original, index) => {
    const record = structuredClone(original) as DialogueRecord;
    const first = Object.values(record.ecs ?? {})[0];
    if (first !== undefined && typeof first.score === "number") {
      // A second judge that disagrees more on some dialogues than on others.
      const score = Math.max(0, Math.min(1, first.score - (index % 5) * 0.1));
      record.ecs = {
        ...record.ecs,
        "second-judge": {
          ...first,
          judge: "second-judge",
          score,
          estimates: (first.estimates ?? []).map((estimate) => ({ ...estimate, predicted: Math.max(0, estimate.predicted - 10) })),
        },
      };
    }
    if (index === COOPERATIVE_ID_INDEX) {
      const last = record.turns.at(-1)!;
      record.type = "cooperative";
      record.preset = "sage";
      record.opening = { ...record.opening, text: `Café crème « ${HOSTILE} » ${record.opening.text}` };
      record.turns[0]!.agent.think = THINK_TEXT;
      record.turns.push({
        index: last.index + 1,
        agent: { text: "One more reply that nobody reads.", chars: 33 },
        user: { appraised: false, emotion: last.user.emotion, adjustments: [], flags: [] },
      });
      return asciiJson(record);
    }
    return JSON.stringify(record);
  });
  writeFileSync(join(dir, "dialogues.jsonl"), `${lines.join("\n")}\n`);
  // A later judgement of the second dialogue, laid over its record when read.
  const second = source[1]!;
  const judge = Object.keys(second.ecs ?? {})[0]!;
  appendFileSync(
    join(dir, "judgements.jsonl"),
    `${JSON.stringify({ id: second.id, ecs: { [judge]: { ...second.ecs![judge], score: 0.123 } } })}\n`,
  );
}
