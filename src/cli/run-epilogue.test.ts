import { describe, expect, it } from "vitest";
import { nextStepLines, usageLines } from "./run-epilogue.js";

const entry = (role: string, model: string, promptTokens: number, completionTokens: number) => ({
  role,
  model,
  calls: 10,
  cachedCalls: 0,
  failedCalls: 0,
  requests: 10,
  retries: 0,
  promptTokens,
  completionTokens,
});

describe("the end of aeb run", () => {
  it("gives each role's tokens, and the cost at the config's prices per million tokens", () => {
    const usage = [entry("agent:a", "qwen", 2_000_000, 500_000), entry("simulator", "mistral", 1_000_000, 100_000)];
    const prices = { qwen: { promptPerMillion: 0.5, completionPerMillion: 2 }, mistral: { promptPerMillion: 1, completionPerMillion: 1 } };
    expect(usageLines(usage, prices)).toEqual([
      "usage (every invocation on this directory; cached calls cost no tokens):",
      "  agent:a (qwen): 10 call(s), 2,000,000 prompt + 500,000 completion tokens, cost 2.00",
      "  simulator (mistral): 10 call(s), 1,000,000 prompt + 100,000 completion tokens, cost 1.10",
      "  cost in all: 3.10 (config prices per million tokens)",
    ]);
    expect(usageLines(usage, undefined).at(-1)).toContain("set prices: { MODEL: { promptPerMillion, completionPerMillion } }");
    expect(usageLines(usage, { qwen: prices.qwen }).at(-1)).toBe("  cost of the priced roles: 2.00; 1 role(s) have no price in the config");
    expect(usageLines(undefined, undefined)).toEqual(["usage: no model was called (offline agents, user and judges)"]);
  });

  it("says where the report is and how to browse the run", () => {
    expect(nextStepLines("runs/x")).toEqual(["report: runs/x/report.html (and report.md)", "browse every dialogue: aeb view runs/x"]);
  });
});
