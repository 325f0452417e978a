import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { ConfigError } from "../core/errors.js";
import { DIALOGUES_FILE, MANIFEST_FILE } from "../record/files.js";
import { definingHashOf, readManifest } from "../record/manifest.js";
import { RunDirectory } from "../record/run-directory.js";
import { FileWriteError } from "../record/write-error.js";

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

/** Whether the recorder can write: `failing` after a write that failed, until one succeeds again. */
export type RecorderHealth = { state: "ok" } | { state: "failing"; error: string; since: string };

/** How often a failing recorder tries again to write the latest episode it could not write. */
const RETRY_INTERVAL_MS = 1000;

/**
 * `aeb serve --record DIR`: appends every finished episode to DIR/dialogues.jsonl, one line per
 * episode in the run-record format, through the run directory `aeb run` writes with (a line is
 * written whole or cut back, a torn last line repaired on open, the directory locked against a
 * second writer, run.json naming each server that recorded into it). One writer per directory:
 * with `--workers N` the cluster's primary owns it and the workers send it their episodes, so
 * lines never interleave.
 *
 * **An append resolves once the episode is on the disk** (written whole and flushed with
 * fdatasync; appends that arrive while a flush runs share the next one), and the server answers
 * the episode's last step only then. A write that fails (a full disk) rejects, leaves nothing of
 * the line in the file, and turns the recorder `failing`; while failing it tries the latest
 * episode it could not write again every second (a retried step finds it written), so space
 * freed is noticed without a client. A failed flush is not retried: after one, what the kernel
 * kept is unknown, so the recorder fails every append until the server is restarted (as
 * PostgreSQL does), and the restart reads back what is on disk.
 *
 * A directory made by `aeb run`, or a dialogues.jsonl without run.json, is refused: training
 * episodes never mix with a benchmark run's dialogues.
 */
export class EpisodeRecorder {
  private readonly directory: RunDirectory;
  private readonly recent = new Set<string>();
  private written = 0;
  #health: RecorderHealth = { state: "ok" };
  /** A flush failed: every append fails until a restart. */
  #flushFailure: Error | undefined;
  /** The flush that appends made now will wait for (not started yet), and the one running. */
  #nextFlush: Promise<void> | undefined;
  #runningFlush: Promise<void> | undefined;
  #retry: { record: DialogueRecord; timer: NodeJS.Timeout } | undefined;
  #closed = false;
  /** Told when the health changes (the cluster's primary tells its workers). */
  onHealthChange: ((health: RecorderHealth) => void) | undefined;

  constructor(readonly dir: string) {
    refuseOtherRuns(dir);
    this.directory = RunDirectory.open({
      dir,
      command: "aeb serve --record",
      defining: { ...RECORDING_DEFINITION },
      config: RECORDING_CONFIG,
    });
    const finished = this.directory.recorder.finished;
    // The latest ids on disk, for a retry that comes after a restart.
    for (const id of [...finished].slice(-RECENT_IDS)) this.remember(id);
    // The recorder keeps every finished id for resuming a plan; a server running for days must not.
    finished.clear();
    // run.json names this server from the start; a directory that cannot be written is refused now.
    try {
      this.directory.claim();
    } catch (error) {
      this.directory.close();
      throw error;
    }
  }

  /** Episodes written since this recorder opened (on disk: counted once flushed). */
  get count(): number {
    return this.written;
  }

  get health(): RecorderHealth {
    return this.#health;
  }

  /**
   * Appends an episode and resolves once it is on the disk: `true` when written now, `false` when
   * it already was (a retried last step). Rejects when it could not be written; nothing of it is
   * left in the file then, and the same episode may be appended again.
   */
  async append(record: DialogueRecord): Promise<boolean> {
    if (this.#closed) throw new Error("the recorder is closed (the server is stopping)");
    if (this.#flushFailure !== undefined) throw this.#flushFailure;
    if (this.recent.has(record.id)) {
      // Written before; it may still be on its way to the disk.
      await this.#flush();
      return false;
    }
    try {
      this.directory.append(record);
    } catch (error) {
      this.#failing(error as Error, record);
      throw error;
    }
    this.directory.recorder.finished.delete(record.id);
    this.remember(record.id);
    await this.#flush();
    this.written += 1;
    this.#recovered(record.id);
    return true;
  }

  /** Records in run.json that this server stopped, and releases the directory (after the flush in progress). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopRetrying();
    await Promise.allSettled([this.#runningFlush, this.#nextFlush]);
    try {
      this.directory.finish("stopped");
    } catch {
      // A full disk: run.json keeps "running" for this invocation; the episodes are what matters.
    } finally {
      this.directory.close();
    }
  }

  /** A flush that starts after this call, so it covers every line written so far; concurrent callers share it. */
  #flush(): Promise<void> {
    if (this.#nextFlush !== undefined) return this.#nextFlush;
    const previous = this.#runningFlush ?? Promise.resolve();
    const flush: Promise<void> = previous
      .catch(() => undefined)
      .then(() => {
        this.#nextFlush = undefined;
        this.#runningFlush = flush;
        return this.directory.recorder.flush();
      })
      .catch((error: unknown) => {
        const failure = new Error(
          `${(error as Error).message}; what reached the disk is unknown: check the disk, then restart the server (it reads back what is on disk)`,
          { cause: error },
        );
        this.#flushFailure ??= failure;
        this.#failing(failure, undefined);
        throw failure;
      })
      .finally(() => {
        if (this.#runningFlush === flush) this.#runningFlush = undefined;
      });
    this.#nextFlush = flush;
    return flush;
  }

  #failing(error: Error, record: DialogueRecord | undefined): void {
    // Shown on /healthz, which needs no token: the cause, not the server's paths.
    const reason = FileWriteError.isInstance(error)
      ? error.reason
      : FileWriteError.isInstance(error.cause)
        ? `${error.cause.reason} while flushing`
        : "the recorder failed";
    if (this.#health.state === "ok") this.#setHealth({ state: "failing", error: reason, since: new Date().toISOString() });
    else if (this.#health.error !== reason) this.#setHealth({ ...this.#health, error: reason });
    if (record === undefined || this.#flushFailure !== undefined || this.#closed) return;
    if (this.#retry !== undefined) {
      this.#retry.record = record;
      return;
    }
    const timer = setInterval(() => {
      const pending = this.#retry;
      if (pending === undefined) return;
      this.append(pending.record).then(
        () => undefined,
        () => undefined,
      );
    }, RETRY_INTERVAL_MS);
    timer.unref();
    this.#retry = { record, timer };
  }

  #recovered(id: string): void {
    if (this.#flushFailure !== undefined) return;
    if (this.#retry !== undefined && (this.#retry.record.id === id || this.recent.has(this.#retry.record.id))) this.#stopRetrying();
    if (this.#health.state !== "ok") this.#setHealth({ state: "ok" });
  }

  #stopRetrying(): void {
    if (this.#retry !== undefined) clearInterval(this.#retry.timer);
    this.#retry = undefined;
  }

  #setHealth(health: RecorderHealth): void {
    this.#health = health;
    this.onHealthChange?.(health);
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
      throw new ConfigError(
        `--record ${dir} has ${DIALOGUES_FILE} but no ${MANIFEST_FILE}: it is not a recording directory; record into a directory of its own`,
      );
    }
    return;
  }
  if (manifest.kind === "legacy" || manifest.manifest.definingHash !== definingHashOf({ ...RECORDING_DEFINITION })) {
    throw new ConfigError(
      `--record ${dir} holds ${MANIFEST_FILE} of another run (made by aeb run, or unreadable); record into a directory of its own`,
    );
  }
}
