/**
 * Agents given in code: `runBenchmark({ config, agents })` takes a function or an object for each
 * condition of kind `library`, checks the pairing before anything runs, and turns a bad reply into
 * an errored dialogue that says what was wrong. examples/library-agent.mjs runs as written.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
// Through the package's entries (`aeb`, `aeb/record`), as a user's script imports them.
import { ConfigError, parseRunConfig, runBenchmark, type Agent, type AgentInput } from "../src/index.js";
import { readDialogueRecords } from "../src/record/index.js";
import { temporaryDirectory } from "./helpers/cli.js";

const config = (names: string[]) =>
  parseRunConfig(
    {
      scenarios: { suite: "starter", types: ["escalation"] },
      conditions: names.map((name) => ({ name, agent: { kind: "library" as const, id: `${name}-v1` } })),
    },
    "test",
  );

describe("agents given in code", () => {
  it("runs a function and an object side by side, each seeing only the visible conversation", async () => {
    const seen: AgentInput[] = [];
    const echo = (input: AgentInput) => {
      seen.push(input);
      return `I hear that: ${input.history.at(-1)!.content.slice(0, 40)}`;
    };
    const object: Agent = {
      id: "object",
      reply: async () => ({ text: "That sounds unfair, and you are right to be angry.", think: "name the unfairness" }),
    };
    const out = join(temporaryDirectory(), "run");
    const result = await runBenchmark({
      config: parseRunConfig({ ...config(["echo", "object"]) }, "test"),
      outDir: out,
      agents: { echo, object },
    });
    expect(result.errors).toBe(0);
    expect(result.summary.conditions.map((condition) => condition.name)).toEqual(["echo", "object"]);
    const records = readDialogueRecords(out).records;
    expect(
      records.filter((record) => record.condition === "object").every((record) => record.turns[0]!.agent.think === "name the unfairness"),
    ).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    // Nothing hidden (persona, hidden intention, emotion) reaches the agent.
    const visible = ["dialogueId", "history", "language", "seed", "signal", "turnIndex"];
    for (const input of seen) expect(Object.keys(input).filter((key) => !visible.includes(key))).toEqual([]);
    expect(JSON.stringify(seen)).not.toMatch(/hiddenIntention|persona|emotion/);
    // run.json names the agent by its id, so a new version of the code is refused in the same directory.
    expect(readFileSync(join(out, "run.json"), "utf8")).toContain('"id": "echo-v1"');
  });

  it("refuses a library condition without an agent, and an agent without a condition, before anything runs", async () => {
    const out = join(temporaryDirectory(), "run");
    await expect(runBenchmark({ config: config(["mine"]), outDir: out })).rejects.toThrow(ConfigError);
    await expect(runBenchmark({ config: config(["mine"]), outDir: out })).rejects.toThrow(
      /condition\(s\) "mine" of kind library have no agent: pass runBenchmark\(\{ config, agents: \{ "mine": agent \} \}\)/,
    );
    await expect(runBenchmark({ config: config(["mine"]), outDir: out, agents: { mine: () => "hi", other: () => "hi" } })).rejects.toThrow(
      /agents given for "other", but the config has no condition of kind library by that name/,
    );
  });

  it("ends the dialogue as an error naming the agent when it returns something that is not a reply", async () => {
    const out = join(temporaryDirectory(), "run");
    const result = await runBenchmark({
      config: config(["broken"]),
      outDir: out,
      agents: { broken: (() => 42) as unknown as () => string },
    });
    expect(result.errors).toBe(result.planned);
    expect(readDialogueRecords(out).records[0]!.error).toEqual({
      kind: "agent-error",
      stage: "agent",
      message: "agent broken-v1 returned number; an agent returns a string or { text, think?, flags? }",
      retryable: false,
    });
  });

  it("examples/library-agent.mjs runs as written", () => {
    const out = join(temporaryDirectory(), "example");
    const printed = execFileSync(process.execPath, [resolve(import.meta.dirname, "..", "examples", "library-agent.mjs"), out], {
      encoding: "utf8",
    });
    expect(printed).toMatch(/^reflective: FS 0\.\d{3} over 12 dialogues\nattuned: FS 0\.\d{3} over 12 dialogues\n/);
  }, 60_000);
});
