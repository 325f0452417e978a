/**
 * `aeb import sage --verify`, in-process (the command registered on a fresh program): the replay
 * check of the sage preset as a user runs it, on SAGE's shared result files and on a broken file.
 */
import { Command } from "commander";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { registerImportCommand } from "../src/cli/commands/import.js";
import { packageRoot } from "../src/core/data-files.js";
import { temporaryDirectory } from "./helpers/temporary-directory.js";
const RESULTS = join(packageRoot, "..", "shared", "data", "sage", "results-deepseek-v3-simulator");
const present = existsSync(RESULTS);
const resultFiles = present
  ? readdirSync(RESULTS)
      .filter((name) => name.endsWith("_result.jsonl"))
      .sort()
      .map((name) => join(RESULTS, name))
  : [];

async function importCommand(args: string[]): Promise<{ stdout: string; error?: Error }> {
  const printed: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => void printed.push(parts.join(" ")));
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  const program = new Command().exitOverride();
  registerImportCommand(program);
  try {
    await program.parseAsync(["import", "sage", ...args], { from: "user" });
    return { stdout: printed.join("\n") };
  } catch (error) {
    return { stdout: printed.join("\n"), error: error as Error };
  } finally {
    log.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe.skipIf(!present)(
  `aeb import sage --verify on SAGE's result files${present ? "" : " [skipped: ../shared/data/sage is absent]"}`,
  () => {
    // All 400 dialogues are replayed in src/interop/sage-replay.test.ts; here one file, as a user runs it.
    it("says every dialogue of a file replays exactly, with how they ended, and imports nothing without --out", async () => {
      expect(resultFiles).toHaveLength(4);
      const file = resultFiles.find((path) => path.endsWith("gpt-4.1_result.jsonl"))!;
      const { stdout, error } = await importCommand([file, "--verify"]);
      expect(error).toBeUndefined();
      expect(stdout).toBe(
        `${file}: 100 of 100 dialogues replay exactly through the sage preset (ends: success 35, collapse 13, max_turns 52; at most 9 appraised replies)`,
      );
    });
  },
);

describe("aeb import sage --verify on a file SAGE's loop could not have written", () => {
  const dir = temporaryDirectory("aeb-verify-");
  const file = join(dir, "odd_result.jsonl");
  const history = [
    { role: "user", content: "唉。", "emotion-point": 40 },
    { role: "assistant", content: "嗯？" },
    { role: "user", content: "好吧，再见", "emotion-point": 45, planning: { change: 5 } },
    { role: "assistant", content: "别走" },
  ];
  writeFileSync(
    file,
    `${JSON.stringify({ id: "odd", emo_point: 45, player: "* 姓名：李明", scene: "李明和同事闹了矛盾。", task: "倾听", history })}\n`,
  );

  it("lists the dialogue and what differs, fails, and imports nothing even with --out", async () => {
    const out = join(dir, "out");
    const { stdout, error } = await importCommand([file, "--verify", "--out", out]);
    expect(stdout).toContain(`${file}: 0 of 1 dialogues replay exactly through the sage preset`);
    expect(stdout).toContain("line 1 (odd): the preset's loop ends (user_left) after 1 agent replies; SAGE went on to 2");
    expect(error?.message).toBe("the sage preset does not reproduce 1 dialogue(s); nothing imported");
    expect(existsSync(join(out, "dialogues.jsonl"))).toBe(false);
  });

  it("still needs --out to import", async () => {
    expect((await importCommand([file])).error?.message).toMatch(/--out DIR is required to import/);
  });
});
