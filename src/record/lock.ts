import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { RunDirectoryError } from "../core/errors.js";
import { LOCK_FILE } from "./files.js";

/** What the lock file holds: who writes into the directory. */
interface LockOwner {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/** Whether a process with this id runs here (a signal 0 checks without sending anything). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    if (typeof value.pid === "number" && typeof value.host === "string")
      return { pid: value.pid, host: value.host, command: String(value.command ?? "aeb"), since: String(value.since ?? "?") };
  } catch {
    // Unreadable: written by a process killed between creating and filling it.
  }
  return undefined;
}

/**
 * An exclusive lock on a run directory, so that two processes never write into it at once (they
 * would both run the whole plan). The lock is a file created exclusively; a lock left by a
 * process that no longer runs on this host (a kill) is taken over. Released on `release()` and,
 * as a last resort, when the process exits.
 */
export class RunDirectoryLock {
  #released = false;
  readonly #onExit = (): void => this.release();

  private constructor(readonly path: string) {
    process.once("exit", this.#onExit);
  }

  static acquire(dir: string, command: string): RunDirectoryLock {
    const path = join(dir, LOCK_FILE);
    const owner: LockOwner = { pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      let fd: number;
      try {
        fd = openSync(path, "wx");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST")
          throw new RunDirectoryError(`cannot lock ${dir}: ${(error as Error).message}`);
        const holder = readOwner(path);
        const stale = holder === undefined || (holder.host === owner.host && holder.pid !== process.pid && !processAlive(holder.pid));
        if (stale && attempt === 0) {
          rmSync(path, { force: true });
          continue;
        }
        if (holder !== undefined && holder.host !== owner.host) {
          throw new RunDirectoryError(
            `${dir} is locked by ${holder.command} (pid ${holder.pid} on host ${holder.host}, since ${holder.since}); wait for it to finish, or, if no aeb process writes there any more, delete ${path}`,
          );
        }
        throw new RunDirectoryError(
          `${dir} is in use: ${holder?.command ?? "aeb"} (pid ${holder?.pid ?? "?"}, since ${holder?.since ?? "?"}) is writing into it; wait for it to finish or choose another --out`,
        );
      }
      try {
        writeSync(fd, `${JSON.stringify(owner)}\n`);
      } finally {
        closeSync(fd);
      }
      return new RunDirectoryLock(path);
    }
    throw new RunDirectoryError(`cannot lock ${dir}: ${path} keeps reappearing`);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    process.removeListener("exit", this.#onExit);
    const holder = readOwner(this.path);
    if (holder === undefined || holder.pid === process.pid) rmSync(this.path, { force: true });
  }
}
