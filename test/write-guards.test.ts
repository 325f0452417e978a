/**
 * Guards of commands that write: `aeb report` (with or without --write-summary) honours the run
 * lock, and seeds beyond 2^53 - 1 are refused instead of being rounded to another seed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

describe("aeb report and the run lock", () => {
  it("refuses to write into a directory another process writes into, and leaves summary.json as it was", async () => {
    const out = join(temporaryDirectory(), "run");
    expect((await runCli(["run", "--suite", "starter", "--types", "escalation", "--out", out, "--no-progress"])).code).toBe(0);
    const summary = readFileSync(join(out, "summary.json"), "utf8");
    // A live process of this host holds the lock (this test's own parent, which outlives the test).
    writeFileSync(join(out, ".aeb.lock"), JSON.stringify({ pid: process.ppid, host: hostname(), command: "aeb run", since: "now" }));
    for (const args of [
      ["report", out, "--write-summary"],
      ["report", out],
    ]) {
      const refused = await runCli(args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr).toMatch(/is in use: aeb run \(pid \d+, since now\) is writing into it/);
    }
    expect(readFileSync(join(out, "summary.json"), "utf8")).toBe(summary);
    // A lock left by a process that no longer runs is taken over, and released after.
    writeFileSync(join(out, ".aeb.lock"), JSON.stringify({ pid: 2 ** 22 + 54321, host: hostname(), command: "aeb run", since: "then" }));
    const taken = await runCli(["report", out, "--write-summary"]);
    expect(taken.code, taken.stderr).toBe(0);
  });
});

describe("seeds", () => {
  it.each(["9007199254740993", "9007199254740992", "1e3", "-1", "12abc", "1.5"])(
    "refuses --seed %s, naming the safe range",
    async (seed) => {
      const result = await runCli(["run", "--suite", "starter", "--seed", seed, "--dry-run"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `expected a seed, a whole number from 0 to 9007199254740991 (2^53 - 1; larger ones cannot be held exactly), got "${seed}"`,
      );
    },
  );

  it("accepts the largest safe seed", async () => {
    const result = await runCli(["run", "--suite", "starter", "--seed", "9007199254740991", "--dry-run"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("seed 9007199254740991");
  });
});
