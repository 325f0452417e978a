/**
 * JsonlAppender on a failing disk, with the fault injected at the file-system layer (its write and
 * truncate calls), so it runs anywhere; test/server-record-durability.test.ts fills a real tmpfs.
 */
import { ftruncateSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlAppender, type AppendIo } from "./jsonl-file.js";
import { FileWriteError } from "./write-error.js";

const directories: string[] = [];
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function file(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "aeb-jsonl-"));
  directories.push(dir);
  const path = join(dir, "lines.jsonl");
  writeFileSync(path, content);
  return path;
}
const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

/** A disk that takes `room` more bytes: a write beyond it is cut short (as on a nearly full disk), the next one fails; `freeSpace` ends it. */
function diskWithRoom(room: number, options: { truncateFails?: number } = {}): AppendIo & { freeSpace(): void } {
  let left: number | undefined = room;
  let truncateFails = options.truncateFails ?? 0;
  return {
    write(fd, bytes, offset, length) {
      if (left === undefined) return writeSync(fd, bytes, offset, length);
      if (left === 0) throw enospc();
      const count = Math.min(left, length);
      left -= count;
      return writeSync(fd, bytes, offset, count);
    },
    truncate(fd, length) {
      if (truncateFails > 0) {
        truncateFails -= 1;
        throw Object.assign(new Error("EIO: i/o error"), { code: "EIO" });
      }
      ftruncateSync(fd, length);
    },
    freeSpace() {
      left = undefined;
    },
  };
}

describe("JsonlAppender on a full disk", () => {
  it("cuts a short write back to the last whole line, names the file, and appends whole lines once space returns", () => {
    const path = file('{"n":0}\n');
    const disk = diskWithRoom(20);
    const appender = new JsonlAppender(path, disk);
    appender.append({ n: 1 });
    let thrown: unknown;
    try {
      appender.append({ n: 2, padding: "x".repeat(100) });
    } catch (error) {
      thrown = error;
    }
    expect(FileWriteError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      `cannot write ${path}: no space left on the device (ENOSPC); nothing was left half-written: free space on that disk (or choose another directory), then run the same command again`,
    );
    expect(readFileSync(path, "utf8")).toBe('{"n":0}\n{"n":1}\n');
    // Space is back: the next line follows the last whole one, no fragment in between.
    disk.freeSpace();
    appender.append({ n: 3 });
    appender.close();
    expect(readFileSync(path, "utf8")).toBe('{"n":0}\n{"n":1}\n{"n":3}\n');
  });

  it("when even the cut fails, reports the write and cuts the fragment before the next append", () => {
    const path = file("");
    const disk = diskWithRoom(5, { truncateFails: 1 });
    const appender = new JsonlAppender(path, disk);
    expect(() => appender.append({ n: 1, text: "long enough" })).toThrow(/cannot write .*lines\.jsonl: no space left/);
    expect(readFileSync(path, "utf8")).toBe('{"n":');
    disk.freeSpace();
    appender.append({ n: 2 });
    appender.close();
    expect(readFileSync(path, "utf8")).toBe('{"n":2}\n');
  });
});
