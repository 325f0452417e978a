/**
 * `aeb run` on a full disk (a real tmpfs): the run ends with a message naming the file, the remedy
 * and the resume command, never "please report this"; every file it leaves is whole (no torn line,
 * no temporary file, no half report, run.json never "finished" for a run that failed); once space
 * returns the same command resumes, and the result is byte-identical to a run that never failed.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scanJsonlFile } from "../src/core/jsonl.js";
import { FileWriteError } from "../src/record/write-error.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";
import { useMockLlm } from "./helpers/mock-llm.js";
import { directoryIn, mountTmpfs } from "./helpers/tmpfs.js";

const tmpfs = mountTmpfs(3 * 1024 * 1024);
afterAll(() => {
  if (typeof tmpfs !== "string") tmpfs.unmount();
});
const mock = useMockLlm();
const unavailable = typeof tmpfs === "string" ? tmpfs : undefined;
const RUN = ["run", "--suite", "starter", "--no-progress"];
const RESULT_FILES = ["dialogues.jsonl", "summary.json", "report.md"];
/** A file as a run that never failed would have it: the report's invocations row (times, and a second invocation) aside. */
const comparable = (name: string, text: string) =>
  name === "report.md" ? text.replace(/^\| invocations \|.*$/m, "| invocations |") : text;

/** Every file of the directory is whole: JSONL without a bad or torn line, JSON that parses, no temporary file. */
function expectWhole(dir: string): void {
  for (const name of readdirSync(dir)) {
    expect(name, "a temporary file was left behind").not.toMatch(/\.tmp$/);
    const path = join(dir, name);
    if (name.endsWith(".jsonl")) {
      const scan = scanJsonlFile(path, () => {});
      expect(scan.invalid).toEqual([]);
      expect(scan.tornTail).toBe(false);
    } else if (name.endsWith(".json")) {
      expect(() => JSON.parse(readFileSync(path, "utf8")), `${name} is not whole`).not.toThrow();
    } else if (name === "report.html") {
      expect(readFileSync(path, "utf8").trimEnd()).toMatch(/<\/html>$/);
    }
  }
}

describe.skipIf(unavailable !== undefined)(
  `aeb run on a full disk (tmpfs)${unavailable !== undefined ? `: skipped, ${unavailable}` : ""}`,
  () => {
    it("stops naming the file and the resume command, leaves every file whole, and resumes byte-identically once space returns", async () => {
      if (typeof tmpfs === "string") return;
      const clean = join(temporaryDirectory(), "clean");
      expect((await runCli([...RUN, "--out", clean])).code).toBe(0);

      // Room for part of the dialogues: dialogues.jsonl fills the disk.
      const out = join(directoryIn(tmpfs, "a"), "run");
      tmpfs.fill(160 * 1024);
      const failed = await runCli([...RUN, "--out", out]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        `aeb: cannot write ${join(out, "dialogues.jsonl")}: no space left on the device (ENOSPC); nothing was left half-written: free space on that disk`,
      );
      expect(failed.stderr).toContain(`resume with: aeb run --suite starter --no-progress --out ${out}`);
      expect(failed.stderr).not.toMatch(/unexpected error|please report/);
      expectWhole(out);
      const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { invocations: Array<{ outcome: string }> };
      expect(["failed", "running"]).toContain(manifest.invocations.at(-1)!.outcome);
      expect(existsSync(join(out, "report.html"))).toBe(false);
      const kept = readFileSync(join(out, "dialogues.jsonl"), "utf8").split("\n").filter(Boolean).length;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(60);

      tmpfs.freeSpace();
      const resumed = await runCli([...RUN, "--out", out]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(new RegExp(`resuming .*: ${kept} of 60 dialogues already finished`));
      expectWhole(out);
      for (const name of RESULT_FILES) {
        expect(comparable(name, readFileSync(join(out, name), "utf8")), `${name} differs from a run that never failed`).toBe(
          comparable(name, readFileSync(join(clean, name), "utf8")),
        );
      }
      expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(
        /\| invocations \| 2: first aeb run at .*; last aeb run at .*, finished at \S+ \|/,
      );
      const outcomes = (
        JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { invocations: Array<{ outcome: string }> }
      ).invocations.map((invocation) => invocation.outcome);
      expect(outcomes.at(-1)).toBe("finished");
    }, 120_000);

    it("when the reports do not fit: no half report.html, run.json not 'finished' (the exit code is 1), and a rerun writes them", async () => {
      if (typeof tmpfs === "string") return;
      const out = join(directoryIn(tmpfs, "b"), "run");
      // Room for the dialogues, run.json, summary.json and report.md of a clean run of the same
      // command (sizes measured, so the test follows what a record holds), not for report.html as well.
      const clean = join(temporaryDirectory(), "clean-b");
      expect((await runCli([...RUN, "--out", clean])).code).toBe(0);
      const size = (name: string) => statSync(join(clean, name)).size;
      const slack = 48 * 1024;
      expect(size("report.html")).toBeGreaterThan(2 * slack);
      tmpfs.fill(size("dialogues.jsonl") + size("run.json") + size("summary.json") + size("report.md") + slack);
      const failed = await runCli([...RUN, "--out", out]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(
        /aeb: cannot write .*run\/(report\.html|report\.md|summary\.json): no space left on the device \(ENOSPC\)/,
      );
      expect(failed.stderr).toContain("resume with: ");
      expectWhole(out);
      expect(readFileSync(join(out, "dialogues.jsonl"), "utf8").split("\n").filter(Boolean)).toHaveLength(60);
      const outcome = (
        JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { invocations: Array<{ outcome: string }> }
      ).invocations.at(-1)!.outcome;
      expect(outcome).not.toBe("finished");
      tmpfs.freeSpace();
      const rerun = await runCli([...RUN, "--out", out]);
      expect(rerun.code, rerun.stderr).toBe(0);
      expectWhole(out);
      expect(readFileSync(join(out, "report.html"), "utf8").trimEnd()).toMatch(/<\/html>$/);
    }, 120_000);

    it("with models: a usage.jsonl that cannot be written stops the run with the file named; no dialogue is blamed for it", async () => {
      if (typeof tmpfs === "string") return;
      const server = await mock({ latency: 5 });
      const out = join(directoryIn(tmpfs, "c"), "run");
      const endpoint = (model: string) => ({
        baseUrl: server.url,
        model,
        maxRetries: 1,
        retryBaseDelayMs: 5,
        retryMaxDelayMs: 20,
        timeoutMs: 5000,
      });
      const config = parseRunConfig(
        {
          seed: 3,
          concurrency: 4,
          repeats: 4,
          scenarios: { suite: "starter", types: ["escalation"] },
          simulator: { kind: "llm", endpoint: endpoint("sim") },
          conditions: [{ name: "model", agent: { kind: "llm", think: false, endpoint: endpoint("agent") } }],
          judges: { ecs: [], hid: [] },
        },
        "test",
      );
      tmpfs.fill(48 * 1024);
      let thrown: unknown;
      try {
        await runBenchmark({ config, outDir: out });
      } catch (error) {
        thrown = error;
      } finally {
        tmpfs.freeSpace();
      }
      expect(FileWriteError.isInstance(thrown), String(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(
        new RegExp(`^cannot write ${out}/(usage|dialogues)\\.jsonl: no space left on the device \\(ENOSPC\\)`),
      );
      expectWhole(out);
      const dialogues = existsSync(join(out, "dialogues.jsonl")) ? readFileSync(join(out, "dialogues.jsonl"), "utf8") : "";
      expect(dialogues).not.toMatch(/ENOSPC|no space/);
      expect(
        dialogues
          .split("\n")
          .filter(Boolean)
          .every((line) => (JSON.parse(line) as { status: string }).status === "done"),
      ).toBe(true);
      const resumed = await runBenchmark({ config, outDir: out });
      expect(resumed.finished).toBe(resumed.planned);
      expect(resumed.summary.errors).toBe(0);
    }, 120_000);
  },
);
