import { RunDirectoryError } from "../core/errors.js";

/** What an errno of a failed write means, and what the user can do about it. */
const FILE_SYSTEM_FAILURES: Readonly<Record<string, { what: string; remedy: string }>> = {
  ENOSPC: { what: "no space left on the device", remedy: "free space on that disk (or choose another directory)" },
  EDQUOT: { what: "the disk quota is used up", remedy: "free space within the quota (or choose another directory)" },
  EFBIG: { what: "the file is larger than the file system allows", remedy: "choose a directory on another file system" },
  EROFS: { what: "the file system is read-only", remedy: "choose a directory on a writable file system" },
  EACCES: { what: "permission denied", remedy: "make the directory writable by this user (or choose another directory)" },
  EPERM: { what: "operation not permitted", remedy: "make the directory writable by this user (or choose another directory)" },
  EIO: { what: "an input/output error of the device", remedy: "check the disk (dmesg, SMART) before writing to it again" },
  EMFILE: { what: "too many open files in this process", remedy: "raise the limit (ulimit -n)" },
  ENFILE: { what: "too many open files on this system", remedy: "close other programs' files or raise the system limit" },
  ENOENT: { what: "no such file or directory", remedy: "check the path (and that nothing deletes the directory while AEB writes into it)" },
};

/** The errno code of a Node.js file-system error, if it is one. */
export function fileSystemErrorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** Whether `error` is a file-system error that the user can act on (a full disk, a read-only mount...). */
export function isFileSystemError(error: unknown): boolean {
  const code = fileSystemErrorCode(error);
  return code !== undefined && code in FILE_SYSTEM_FAILURES;
}

/**
 * A file of a run directory (or a report, an export) could not be written: the disk is full, the
 * file system read-only... The message names the file, the cause and the remedy; nothing of the
 * file is left half-written (appends are truncated back, whole files are written to a temporary
 * file renamed over the old one), so the same command can be run again once the cause is fixed.
 */
export class FileWriteError extends RunDirectoryError {
  /** Marker so `isInstance` works across module copies. */
  readonly fileWriteError = true;
  /** The errno code (`ENOSPC`...). */
  readonly code: string;
  /** The cause without the path, e.g. "no space left on the device (ENOSPC)". */
  readonly reason: string;

  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    const code = fileSystemErrorCode(cause) ?? "unknown";
    const known = FILE_SYSTEM_FAILURES[code];
    const what = known?.what ?? (cause instanceof Error ? cause.message : String(cause));
    const remedy = known?.remedy ?? "check the disk and the directory's permissions";
    super(`cannot write ${path}: ${what} (${code}); nothing was left half-written: ${remedy}, then run the same command again`, { cause });
    this.code = code;
    this.reason = `${what} (${code})`;
  }

  static override isInstance(value: unknown): value is FileWriteError {
    return RunDirectoryError.isInstance(value) && (value as { fileWriteError?: unknown }).fileWriteError === true;
  }
}

/**
 * A Node.js file-system error (a full disk, a read-only mount, a missing permission) as one line
 * for the user: the file, what happened and the remedy; undefined for any other error.
 */
export function describeFileSystemError(error: unknown): string | undefined {
  if (FileWriteError.isInstance(error)) return error.message;
  const code = fileSystemErrorCode(error);
  const known = code === undefined ? undefined : FILE_SYSTEM_FAILURES[code];
  if (known === undefined) return undefined;
  const path = (error as NodeJS.ErrnoException).path;
  const target = typeof path === "string" ? `cannot use ${path}` : "a file operation failed";
  return `${target}: ${known.what} (${code}); ${known.remedy}, then run the same command again`;
}

/** Runs a write; a file-system failure becomes a {@link FileWriteError} naming `path`. */
export function writingFile<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (FileWriteError.isInstance(error)) throw error;
    if (fileSystemErrorCode(error) !== undefined) throw new FileWriteError(path, error);
    throw error;
  }
}
