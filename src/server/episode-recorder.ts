import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { ConfigError } from "../core/errors.js";
import { DIALOGUES_FILE, MANIFEST_FILE } from "../record/files.js";
import { definingHashOf, readManifest } from "../record/manifest.js";
import { RunDirectory } from "../record/run-directory.js";

/**
 * What defines a recording directory: it holds training episodes, whatever served them (each
 * invocation in run.json names the AEB version and commit). A directory made by `aeb run` has
 * another definition, so it is refused rather than mixed with training episodes.
 */
const RECORDING_DEFINITION = { kind: "training episodes", recordedBy: "aeb serve --record" } as const;
/** run.json's config: enough for `aeb report DIR` to read it as a run (the summary is recomputed from the dialogues). */
const RECORDING_CONFIG = { recordedBy: "aeb serve --record", seed: 1 } as const;

/** Ids remembered to drop a retried last step's second copy (retries come within seconds, so a window suffices). */
const RECENT_IDS = 100_000;

/**
 * `aeb serve --record DIR`: appends every finished episode to DIR/dialogues.jsonl, one line per
 * episode in the run-record format, through the run directory `aeb run` writes with (one write
 * per line, a torn last line repaired on open, the directory locked against a second writer,
 * run.json naming each server that recorded into it). One writer per directory: with
 * `--workers N` the cluster's primary owns it and the workers send it their episodes, so lines
 * never interleave.
 *
 * A directory made by `aeb run`, or a dialogues.jsonl without run.json, is refused: training
 * episodes never mix with a benchmark run's dialogues.
 */
export class EpisodeRecorder {
  private readonly directory: RunDirectory;
  private readonly recent = new Set<string>();
  private written = 0;

  constructor(readonly dir: string) {
    refuseOtherRuns(dir);
    this.directory = RunDirectory.open({ dir, command: "aeb serve --record", defining: { ...RECORDING_DEFINITION }, config: RECORDING_CONFIG });
    const finished = this.directory.recorder.finished;
    // The latest ids on disk, for a retry that comes after a restart.
    for (const id of [...finished].slice(-RECENT_IDS)) this.remember(id);
    // The recorder keeps every finished id for resuming a plan; a server running for days must not.
    finished.clear();
  }

  /** Episodes written since this recorder opened. */
  get count(): number {
    return this.written;
  }

  /** Appends an episode; a second copy of one already written (a retried last step) is dropped. Returns whether it was written. */
  append(record: DialogueRecord): boolean {
    if (this.recent.has(record.id)) return false;
    this.directory.append(record);
    this.directory.recorder.finished.delete(record.id);
    this.remember(record.id);
    this.written += 1;
    return true;
  }

  /** Records in run.json that this server stopped, and releases the directory. */
  close(): void {
    try {
      this.directory.finish("stopped");
    } finally {
      this.directory.close();
    }
  }

  private remember(id: string): void {
    this.recent.add(id);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
  }
}

/** Refuses a directory that holds something other than recorded training episodes. */
function refuseOtherRuns(dir: string): void {
  let manifest: ReturnType<typeof readManifest>;
  try {
    manifest = readManifest(dir);
  } catch {
    manifest = { kind: "legacy", config: undefined };
  }
  if (manifest.kind === "none") {
    if (existsSync(join(dir, DIALOGUES_FILE))) {
      throw new ConfigError(`--record ${dir} has ${DIALOGUES_FILE} but no ${MANIFEST_FILE}: it is not a recording directory; record into a directory of its own`);
    }
    return;
  }
  if (manifest.kind === "legacy" || manifest.manifest.definingHash !== definingHashOf({ ...RECORDING_DEFINITION })) {
    throw new ConfigError(`--record ${dir} holds ${MANIFEST_FILE} of another run (made by aeb run, or unreadable); record into a directory of its own`);
  }
}
