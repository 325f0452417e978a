import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection between the phases of a large run's ending (the dialogues played, the
 * summary, report.md, report.html), so that each phase starts from the heap that is live rather
 * than from the previous phase's garbage. V8 sets the old generation's next limit from what a major
 * collection finds live, and collects late on a loaded machine: at 100,000 dialogues the ending of
 * a run that played dialogues first grew to 380-440 MB of RSS on the play's and the summary's
 * promoted garbage (BENCHMARKS.md section 2), where the same steps from a cold start take 250.
 *
 * Node has no API for a collection: `--expose-gc` is set at run time and the `gc` function taken from
 * a fresh context (as Jest does for --logHeapUsage). Only above {@link LARGE_ENDING} dialogues,
 * where a collection (tens of milliseconds) is nothing beside the summary's minutes; the outputs
 * are the same bytes either way (a collection changes no value).
 */
export const LARGE_ENDING = 10_000;

let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
      collect = typeof gc === "function" ? () => (gc as () => void)() : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Collects garbage when `dialogues` is at least {@link LARGE_ENDING}; a no-op below it, or where the engine offers no collection. */
export function releaseGarbage(dialogues: number): void {
  if (dialogues < LARGE_ENDING) return;
  collector()?.();
}
