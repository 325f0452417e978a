import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { REDACTED, displayEndpoint } from "../llm/redaction.js";
import { DialogueRecorder, surveyDialogues, type RecorderRepair } from "./dialogue-recorder.js";
import { DIALOGUES_FILE, MANIFEST_FILE } from "./files.js";
import { JudgementWriter, type JudgementLine } from "./judgements.js";
import { RunDirectoryLock } from "./lock.js";
import { definingHashOf, describeDefiningChanges, readManifest, writeManifest, type Invocation, type RunManifest } from "./manifest.js";
import { currentProvenance } from "./provenance.js";
import { checkUsageLog, UsageLog } from "./usage-log.js";
import { FileWriteError } from "./write-error.js";

/**
 * Creates the directory (or checks it can be written) with a message that names it. Returns the
 * outermost directory it created (undefined when `dir` existed), so a run that never claims it can
 * leave no trace.
 */
export function ensureWritableDirectory(dir: string): string | undefined {
  try {
    const created = mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return created;
  } catch (error) {
    throw new RunDirectoryError(`output directory ${dir} cannot be written: ${(error as Error).message}`);
  }
}

/** Removes `dir` and its parents up to `outermost`, each only while empty: what ensureWritableDirectory made and nothing put in since. */
function removeIfEmpty(dir: string, outermost: string): void {
  const stop = resolve(outermost);
  for (let current = resolve(dir); ; current = dirname(current)) {
    try {
      if (readdirSync(current).length > 0) return;
      rmdirSync(current);
    } catch {
      return;
    }
    if (current === stop || dirname(current) === current) return;
  }
}

const SECRET_KEY = /(^|[^a-z])(api[-_]?key|token|secret|password|authorization|auth)$/i;

/**
 * The config as run.json stores it: every string under a key that names a secret is replaced,
 * and URLs lose credentials and query strings. `apiKeyEnv` names a variable, not a key, and stays.
 */
export function redactConfig(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => redactConfig(item, key));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, item]) => [name, redactConfig(item, name)]));
  }
  if (typeof value !== "string") return value;
  if (SECRET_KEY.test(key) && key !== "apiKeyEnv") return REDACTED;
  if (/^https?:\/\//i.test(value)) return displayEndpoint(value);
  return value;
}

export interface OpenRunDirectoryOptions {
  dir: string;
  /** What writes: `aeb run`, `library`... (shown in the lock and in run.json). */
  command: string;
  /** Everything that decides the results (hashed into run.json's guard). */
  defining: Record<string, unknown>;
  /** The resolved config to record (redacted here). */
  config: unknown;
  /** Continue a directory made with another definition (finished dialogues still in the plan are kept). */
  force?: boolean;
}

/** How the directory was found: a fresh one, one to resume, or one taken over. */
export type RunDirectoryState = "fresh" | "resumed" | "replaced";

/**
 * A run directory opened for writing: the one place where a run's record is written. Opening it
 * locks it (a second process is refused), checks that an earlier run there had the same
 * definition (else refuses, naming what changed, unless `force`, or unless that run finished no
 * dialogue), and repairs what a kill left. Nothing is written until {@link claim}: run.json,
 * the dialogues and the usage log appear once the run has shown it can work (its first
 * successful model call, or its first finished dialogue), so a failed preflight leaves the
 * directory as it was.
 */
export class RunDirectory {
  readonly #recorder: DialogueRecorder | undefined;
  readonly usage: UsageLog;
  private readonly judgements: JudgementWriter;
  /** Said to the user: what was taken over, why. */
  readonly notes: string[];
  #claimed = false;
  #manifest: RunManifest | undefined;
  readonly #invocation: Invocation;
  readonly #previous: RunManifest | undefined;
  readonly #lock: RunDirectoryLock;

  private constructor(
    readonly dir: string,
    readonly state: RunDirectoryState,
    lock: RunDirectoryLock,
    readonly definingHash: string,
    private readonly defining: Record<string, unknown>,
    private readonly config: unknown,
    previous: RunManifest | undefined,
    replaced: string | undefined,
    notes: string[],
    command: string,
    recording: boolean,
  ) {
    this.#lock = lock;
    this.#previous = previous;
    this.notes = notes;
    this.#invocation = {
      command,
      startedAt: new Date().toISOString(),
      endedAt: null,
      outcome: "running",
      definingHash,
      ...(replaced !== undefined ? { replaced } : {}),
      provenance: currentProvenance(),
    };
    try {
      this.#recorder = recording ? new DialogueRecorder(dir) : undefined;
    } catch (error) {
      lock.release();
      throw error;
    }
    this.usage = new UsageLog(dir);
    this.usage.onFailure = (error) => this.#writeFailed(error);
    this.judgements = new JudgementWriter(dir);
  }

  #writeFailure: Error | undefined;
  /** Told of the first write into the directory that failed outside a call that could throw it (the usage log). */
  onWriteFailure: ((error: Error) => void) | undefined;

  /** The first failed write of the usage log, if any (a {@link FileWriteError}). */
  get writeFailure(): Error | undefined {
    return this.#writeFailure;
  }

  #writeFailed(error: Error): void {
    this.#writeFailure ??= error;
    this.onWriteFailure?.(error);
  }

  static open(options: OpenRunDirectoryOptions): RunDirectory {
    const { dir } = options;
    const created = ensureWritableDirectory(dir);
    let lock: RunDirectoryLock;
    try {
      lock = RunDirectoryLock.acquire(dir, options.command);
    } catch (error) {
      if (created !== undefined) removeIfEmpty(dir, created);
      throw error;
    }
    try {
      const definingHash = definingHashOf(options.defining);
      const onDisk = readManifest(dir);
      const notes: string[] = [];
      let state: RunDirectoryState = existsSync(join(dir, DIALOGUES_FILE)) ? "resumed" : "fresh";
      let replaced: string | undefined;
      const previous = onDisk.kind === "current" ? onDisk.manifest : undefined;
      if (
        onDisk.kind === "none" &&
        existsSync(join(dir, DIALOGUES_FILE)) &&
        surveyDialogues(dir).finished.size > 0 &&
        options.force !== true
      ) {
        throw new RunDirectoryError(
          `${dir} has ${DIALOGUES_FILE} but no ${MANIFEST_FILE}; use --force to adopt it or choose another --out`,
        );
      }
      const sameRun = previous !== undefined && previous.definingHash === definingHash;
      if (onDisk.kind !== "none" && !sameRun) {
        const finished = surveyDialogues(dir).finished.size;
        const changes =
          previous !== undefined
            ? describeDefiningChanges(previous.defining, options.defining)
            : ["it was made by an earlier version of AEB, whose run.json does not record what defines its results"];
        const description = changes.map((change) => `  - ${change}`).join("\n");
        if (finished > 0 && options.force !== true) {
          throw new RunDirectoryError(
            `${dir} holds ${finished} finished dialogue(s) of a run with a different definition, so resuming would mix two runs:\n${description}\n` +
              "use another --out, or --force to continue it under the new definition (finished dialogues that are still in the plan are kept)",
          );
        }
        replaced = previous?.definingHash ?? "format-1";
        state = "replaced";
        notes.push(
          finished > 0
            ? `continuing ${dir} under a new definition (--force); ${finished} finished dialogue(s) still in the plan are kept:\n${description}`
            : `taking over ${dir}: its earlier run finished no dialogue:\n${description}`,
        );
      }
      // Found now, with the remedy, rather than after every dialogue has run.
      checkUsageLog(dir);
      const directory = new RunDirectory(
        dir,
        state,
        lock,
        definingHash,
        options.defining,
        redactConfig(options.config),
        previous,
        replaced,
        notes,
        options.command,
        true,
      );
      directory.#created = created;
      // The directory already belongs to this run: its usage is written from the first request, so a kill before the first answer loses none.
      if (sameRun) directory.usage.open();
      return directory;
    } catch (error) {
      lock.release();
      if (created !== undefined) removeIfEmpty(dir, created);
      throw error;
    }
  }

  /**
   * Opens a finished run's directory to add judgements (`aeb judge`): locked like a run, its
   * dialogues untouched, its run.json (when it has one) gaining this invocation.
   */
  static openForJudging(dir: string, command: string): RunDirectory {
    if (!existsSync(join(dir, DIALOGUES_FILE))) throw new RunDirectoryError(`${dir} has no ${DIALOGUES_FILE}: is it a run directory?`);
    return RunDirectory.#openAsItIs(dir, command, false, undefined);
  }

  /**
   * Opens a directory to add dialogues that are not part of its run's plan (`aeb chat` saves a
   * person's dialogue as condition `human` beside the models'): no guard, since they are extra
   * conditions, not the run's own; locked; its run.json gaining this invocation. A fresh
   * directory gets the run.json of `fresh`.
   */
  static openForAdding(dir: string, command: string, fresh: { defining: Record<string, unknown>; config: unknown }): RunDirectory {
    ensureWritableDirectory(dir);
    return RunDirectory.#openAsItIs(dir, command, true, fresh);
  }

  static #openAsItIs(
    dir: string,
    command: string,
    recording: boolean,
    fresh: { defining: Record<string, unknown>; config: unknown } | undefined,
  ): RunDirectory {
    const lock = RunDirectoryLock.acquire(dir, command);
    try {
      const onDisk = readManifest(dir);
      const previous = onDisk.kind === "current" ? onDisk.manifest : undefined;
      const hasDialogues = existsSync(join(dir, DIALOGUES_FILE));
      if (previous === undefined && !hasDialogues && fresh !== undefined) {
        return new RunDirectory(
          dir,
          "fresh",
          lock,
          definingHashOf(fresh.defining),
          fresh.defining,
          redactConfig(fresh.config),
          undefined,
          undefined,
          [],
          command,
          recording,
        );
      }
      const directory = new RunDirectory(
        dir,
        "resumed",
        lock,
        previous?.definingHash ?? "",
        previous?.defining ?? {},
        previous?.config,
        previous,
        undefined,
        [],
        command,
        recording,
      );
      // A directory without a current run.json (an import, an old run) gets none: there is nothing to guard.
      if (previous === undefined) directory.#manifestless = true;
      return directory;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  #manifestless = false;
  /** The outermost directory this run created; removed again at close when the run never claimed it (a failed preflight). */
  #created: string | undefined;

  /** The dialogue recorder (run mode only). */
  get recorder(): DialogueRecorder {
    if (this.#recorder === undefined) throw new Error("this run directory was opened for judging: it records no dialogue");
    return this.#recorder;
  }

  get claimed(): boolean {
    return this.#claimed;
  }

  get repaired(): RecorderRepair {
    return this.recorder.repaired;
  }

  /** Records a judgement made after the dialogue was recorded, claiming the directory first. */
  appendJudgement(line: JudgementLine): void {
    this.claim();
    this.judgements.append(line);
  }

  /**
   * Writes run.json (this invocation added) and starts writing the usage log: from now on the
   * directory belongs to this run. Idempotent.
   */
  claim(): void {
    if (this.#claimed) return;
    if (this.#manifestless) {
      this.usage.open();
      this.#claimed = true;
      return;
    }
    const manifest: RunManifest = {
      format: 2,
      definingHash: this.definingHash,
      defining: this.defining,
      config: this.config,
      invocations: [...(this.#previous?.invocations ?? []), this.#invocation],
    };
    // Claimed once run.json is written: a full disk leaves the claim to the next attempt.
    writeManifest(this.dir, manifest);
    this.#manifest = manifest;
    this.#claimed = true;
    this.usage.open();
  }

  /** Records a finished (or errored) dialogue, claiming the directory first. */
  append(record: DialogueRecord): void {
    this.claim();
    this.recorder.append(record);
  }

  /** Records how this invocation ended (only once the directory is claimed: an unclaimed run wrote nothing). */
  finish(outcome: Exclude<Invocation["outcome"], "running">, endedAt = new Date().toISOString()): void {
    if (this.#manifest === undefined) return;
    this.#invocation.endedAt = endedAt;
    this.#invocation.outcome = outcome;
    writeManifest(this.dir, this.#manifest);
  }

  /**
   * {@link finish} for a run that is ending without finishing: on a full disk run.json keeps
   * "running" for this invocation, and the error that ended the run is the one to report.
   */
  finishIfPossible(outcome: "stopped" | "failed"): void {
    try {
      this.finish(outcome);
    } catch (error) {
      if (!FileWriteError.isInstance(error)) throw error;
    }
  }

  close(): void {
    try {
      this.#recorder?.close();
      this.usage.close();
      this.judgements.close();
    } finally {
      this.#lock.release();
      if (!this.#claimed && this.#created !== undefined) removeIfEmpty(this.dir, this.#created);
    }
  }
}
