import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { ConfigError } from "../core/errors.js";
// The one import of the run directory's code in server/ (it is moving to its own module).
import { DIALOGUES_FILE, DialogueRecorder, ensureWritableDirectory, hashOf, MANIFEST_FILE } from "../runner/run-directory.js";

/** What run.json of a recording directory holds: enough for `aeb report` to read it as a run. */
const RECORDING_CONFIG = { recordedBy: "aeb serve --record", seed: 1 } as const;

/** Ids remembered to drop a retried last step's second copy (retries come within seconds, so a window suffices). */
const RECENT_IDS = 100_000;

/**
 * `aeb serve --record DIR`: appends every finished episode to DIR/dialogues.jsonl, one line per
 * episode in the run-record format, through the same recorder as `aeb run` (one write per line, a
 * torn last line repaired on open). One writer per directory: with `--workers N` the cluster's
 * primary owns it and the workers send it their episodes, so lines never interleave.
 *
 * DIR gets a run.json of its own, so `aeb report DIR` reads it like a benchmark run (the summary is
 * recomputed from the dialogues); a directory made by `aeb run` is refused, and so is a
 * dialogues.jsonl without run.json.
 */
export class EpisodeRecorder {
  private readonly recorder: DialogueRecorder;
  private readonly recent = new Set<string>();
  private written = 0;

  constructor(readonly dir: string) {
    ensureWritableDirectory(dir);
    const manifestPath = join(dir, MANIFEST_FILE);
    const manifest = { format: 1, configHash: hashOf(RECORDING_CONFIG), config: RECORDING_CONFIG };
    if (existsSync(manifestPath)) {
      let existing: { configHash?: unknown } | undefined;
      try {
        existing = JSON.parse(readFileSync(manifestPath, "utf8")) as { configHash?: unknown };
      } catch {
        existing = undefined;
      }
      if (existing?.configHash !== manifest.configHash) {
        throw new ConfigError(`--record ${dir} holds ${MANIFEST_FILE} of another run (made by aeb run, or unreadable); record into a directory of its own`);
      }
    } else if (existsSync(join(dir, DIALOGUES_FILE))) {
      throw new ConfigError(`--record ${dir} has ${DIALOGUES_FILE} but no ${MANIFEST_FILE}: it is not a recording directory; record into a directory of its own`);
    } else {
      writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    }
    this.recorder = new DialogueRecorder(dir);
    // The latest ids on disk, for a retry that comes after a restart; the rows themselves are not needed.
    for (const id of [...this.recorder.finished.keys()].slice(-RECENT_IDS)) this.remember(id);
    this.recorder.finished.clear();
  }

  /** Episodes written since this recorder opened. */
  get count(): number {
    return this.written;
  }

  /** Appends an episode; a second copy of one already written (a retried last step) is dropped. Returns whether it was written. */
  append(record: DialogueRecord): boolean {
    if (this.recent.has(record.id)) return false;
    this.recorder.append(record);
    // The recorder keeps a row per finished dialogue for summaries; a server running for days must not.
    this.recorder.finished.delete(record.id);
    this.remember(record.id);
    this.written += 1;
    return true;
  }

  close(): void {
    this.recorder.close();
  }

  private remember(id: string): void {
    this.recent.add(id);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
  }
}
