import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DialogueRecordSchema } from "../src/core/dialogue.js";
import { loadReplyTokenizer } from "../src/metrics/reply-tokenizer.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { temporaryDirectory } from "./helpers/temporary-directory.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "tokenizer");
const tempDir = () => temporaryDirectory("aeb-tokens-");

const base = {
  scenarios: { suite: "starter" },
  conditions: [
    { name: "attuned", agent: { kind: "reference", id: "attuned" } },
    { name: "advice", agent: { kind: "reference", id: "advice" } },
  ],
};

function records(outDir: string) {
  return readFileSync(join(outDir, "dialogues.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => DialogueRecordSchema.parse(JSON.parse(line)));
}

describe("reply length in tokens (tokenizer in the run config)", () => {
  it("counts every visible reply with the tokenizer and reports the mean per condition", async () => {
    const outDir = tempDir();
    const { summary } = await runBenchmark({ config: parseRunConfig({ ...base, tokenizer: { path: FIXTURE } }, "test"), outDir });
    const tokenizer = loadReplyTokenizer(FIXTURE);

    const all = records(outDir);
    for (const record of all) for (const turn of record.turns) expect(turn.agent.tokens).toBe(tokenizer.count(turn.agent.text));
    for (const condition of summary.conditions) {
      const perDialogue = all
        .filter((record) => record.condition === condition.name)
        .map((record) => record.turns.reduce((sum, turn) => sum + (turn.agent.tokens ?? 0), 0) / record.turns.length);
      expect(condition.meanReplyTokens).toBeCloseTo(perDialogue.reduce((sum, value) => sum + value, 0) / perDialogue.length, 10);
      expect(condition.meanReplyTokens).toBeGreaterThan(0);
    }
    const report = readFileSync(join(outDir, "report.md"), "utf8");
    expect(report).toMatch(/\| reply chars \| reply tokens \|/);
  });

  it("leaves records, summary and report as they were when no tokenizer is set", async () => {
    const outDir = tempDir();
    const { summary } = await runBenchmark({ config: parseRunConfig(base, "test"), outDir });
    expect(records(outDir).every((record) => record.turns.every((turn) => turn.agent.tokens === undefined))).toBe(true);
    expect(summary.conditions.every((condition) => !("meanReplyTokens" in condition))).toBe(true);
    expect(readFileSync(join(outDir, "report.md"), "utf8")).not.toContain("reply tokens");
  });

  it("refuses to resume a run whose tokenizer vocabulary changed", async () => {
    const outDir = tempDir();
    const copy = join(tempDir(), "tok");
    cpSync(FIXTURE, copy, { recursive: true });
    await runBenchmark({ config: parseRunConfig({ ...base, tokenizer: { path: copy } }, "test"), outDir });
    const changed = readFileSync(join(copy, "tokenizer.json"), "utf8").replace('"hard": 12', '"hard": 12, "low": 13');
    writeFileSync(join(copy, "tokenizer.json"), changed);
    await expect(runBenchmark({ config: parseRunConfig({ ...base, tokenizer: { path: copy } }, "test"), outDir })).rejects.toThrow(
      /different definition[\s\S]*config tokenizer\.sha256/,
    );
  });
});
