/**
 * Runs that fail say why: errors summarised by kind and stage (terminal, report.md, report.html,
 * summary.json), an early stop when the first dialogues all fail alike (configurable), and a failed
 * preflight that leaves no directory behind. Driven through the CLI as a user runs it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunSummary } from "../src/analysis/summary-schema.js";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";
import { useMockLlm } from "./helpers/mock-llm.js";

const startMock = useMockLlm();

/** A config with one model under test at `url`, on the starter suite's escalation scenarios, three repeats. */
function writeConfig(url: string, extra: Record<string, unknown> = {}): string {
  const path = join(temporaryDirectory(), "config.json");
  writeFileSync(
    path,
    JSON.stringify({
      repeats: 3,
      concurrency: 2,
      scenarios: { suite: "starter", types: ["escalation"] },
      conditions: [{ name: "model", agent: { kind: "llm", endpoint: { baseUrl: url, model: "agent", maxRetries: 0 } } }],
      ...extra,
    }),
  );
  return path;
}

describe("a run whose dialogues fail", () => {
  it("stops early with the cause and the resume command when its first dialogues all fail alike", async () => {
    const server = await startMock({ faults: [{ type: "status", status: 400, message: "unsupported parameter: think" }] });
    const out = join(temporaryDirectory(), "run");
    const result = await runCli(["run", "--config", writeConfig(server.url), "--out", out, "--no-progress"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /stopped early: the first 5 dialogues all failed the same way, http at agent: model "agent" .*HTTP 400.*unsupported parameter: think/,
    );
    expect(result.stderr).toContain("earlyStop: { dialogues: 0 }");
    expect(result.stderr).toMatch(/resume with: aeb run --config .* --out /);
    // Five failed dialogues recorded (they run again on resume), not the whole plan's.
    const records = readDialogueRecords(out).records;
    expect(records.length).toBe(5);
    expect(records.every((record) => record.error?.kind === "http" && record.error.stage === "agent" && !record.error.retryable)).toBe(
      true,
    );
  });

  it("with earlyStop off runs every dialogue and summarises the errors by kind and stage in the terminal and both reports", async () => {
    const server = await startMock({ faults: [{ type: "status", status: 400, message: "unsupported parameter: think" }] });
    const out = join(temporaryDirectory(), "run");
    const result = await runCli([
      "run",
      "--config",
      writeConfig(server.url, { earlyStop: { dialogues: 0 } }),
      "--out",
      out,
      "--no-progress",
    ]);
    expect(result.code).toBe(2);
    const planned = readDialogueRecords(out).records.length;
    expect(planned).toBeGreaterThan(5);
    expect(result.stdout).toMatch(
      new RegExp(
        `${planned} dialogue\\(s\\) ended in error, by cause:\\n  ${planned} x http at agent \\(a rerun alone will not help\\), e\\.g\\. model/escalation-[a-z-]+/0: model "agent"`,
      ),
    );
    // The end of the run: tokens per role, the report's path and the viewer's command.
    expect(result.stdout).toMatch(
      /usage \(every invocation on this directory; cached calls cost no tokens\):\n {2}agent:model \(agent\): 0 call\(s\)/,
    );
    expect(result.stdout).toContain(`browse every dialogue: aeb view ${out}`);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as RunSummary;
    expect(summary.errorCauses).toEqual([
      {
        kind: "http",
        stage: "agent",
        count: planned,
        retryable: false,
        example: { dialogueId: expect.stringMatching(/^model\//), message: expect.stringContaining("HTTP 400") },
      },
    ]);
    const markdown = readFileSync(join(out, "report.md"), "utf8");
    expect(markdown).toContain("## Errors");
    expect(markdown).toMatch(new RegExp(`\\| http \\| agent \\| ${planned} \\| no \\| model/escalation-`));
    const page = readFileSync(join(out, "report.html"), "utf8");
    expect(page).toMatch(/<section id="errors">\s*<h2>Errors<\/h2>/);
    expect(page).toContain("unsupported parameter: think");
  });

  it("leaves no directory behind when the preflight fails", async () => {
    const server = await startMock();
    const url = server.url;
    await server.close();
    const parent = join(temporaryDirectory(), "nested");
    const out = join(parent, "run");
    const result = await runCli(["run", "--config", writeConfig(url), "--out", out, "--no-progress"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/preflight failed: .*unreachable/);
    expect(existsSync(parent)).toBe(false);
  });
});
