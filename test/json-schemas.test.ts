/**
 * schemas/*.schema.json are what the zod schemas say (regenerate with `npm run schemas`), and they
 * accept what AEB really writes: a run's dialogues, summary, manifest, usage log and judgements,
 * and every example config and built-in scenario.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { judgeRun } from "../src/runner/judge-run.js";
import { jsonSchemaTexts } from "../src/runner/json-schemas.js";
import { configReferenceMarkdown, undescribedConfigKeys } from "../src/runner/config-reference.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { temporaryDirectory } from "./helpers/cli.js";

const root = join(import.meta.dirname, "..");
const texts = jsonSchemaTexts();
const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
function validator(file: string): ReturnType<typeof ajv.compile> {
  let validate = compiled.get(file);
  if (validate === undefined) {
    validate = ajv.compile(JSON.parse(texts.get(file) as string) as object);
    compiled.set(file, validate);
  }
  return validate;
}
const jsonLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);

function expectValid(file: string, value: unknown, what: string): void {
  const validate = validator(file);
  const ok = validate(value);
  expect(ok, `${what} against ${file}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

describe("schemas/", () => {
  it("holds exactly the schemas generated from the zod schemas (run `npm run schemas` after changing one)", () => {
    const committed = readdirSync(join(root, "schemas"))
      .filter((file) => file.endsWith(".schema.json"))
      .sort();
    expect(committed).toEqual([...texts.keys()].sort());
    for (const [file, text] of texts) expect(readFileSync(join(root, "schemas", file), "utf8"), file).toBe(text);
  });

  it("describes every key of the run config, for editors' hovers and docs/config-reference.md, which is current (run `npm run schemas`)", () => {
    expect(undescribedConfigKeys()).toEqual([]);
    // The committed JSON Schema carries them, where editors read them.
    const runConfig = JSON.parse(texts.get("run-config.schema.json")!) as {
      properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }>;
    };
    for (const key of ["maxErrorRate", "earlyStop", "scenarios", "conditions"])
      expect(runConfig.properties[key]?.description, key).toEqual(expect.any(String));
    expect(runConfig.properties.scenarios!.properties!.path!.description).toMatch(/directory or file of scenario YAML/);
    const reference = readFileSync(join(root, "docs", "config-reference.md"), "utf8");
    expect(reference).toBe(configReferenceMarkdown());
    // The keys a first-time user could not find: scenarios.path and maxErrorRate.
    expect(reference).toMatch(/## scenarios[\s\S]*\| `path` \| string \|/);
    expect(reference).toMatch(/\| `maxErrorRate` \| number \(>= 0, <= 1\) \| `0` \|/);
  });

  it("accepts every example config and names the schema for editors", () => {
    for (const file of readdirSync(join(root, "examples")).filter((name) => name.endsWith(".yaml"))) {
      const text = readFileSync(join(root, "examples", file), "utf8");
      expect(text, file).toMatch(/^# yaml-language-server: \$schema=\.\.\/schemas\/run-config\.schema\.json$/m);
      expectValid("run-config.schema.json", parseYaml(text), file);
    }
  });

  it("accepts every built-in scenario", () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".yaml") ? [join(dir, entry.name)] : [],
      );
    const files = walk(join(root, "scenarios"));
    expect(files.length).toBeGreaterThan(60);
    const validate = validator("scenario.schema.json");
    for (const file of files)
      expect(validate(parseYaml(readFileSync(file, "utf8"))), `${file}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  });

  it("rejects what the zod schemas reject", () => {
    const validate = validator("run-config.schema.json");
    expect(validate({ repeats: 0 })).toBe(false);
    expect(validate({ seeds: 1 })).toBe(false);
    expect(validate({ conditions: [{ name: "a b", agent: { kind: "reference", id: "attuned" } }] })).toBe(false);
  });

  describe("on a judged LLM run", () => {
    let server: MockLlmServer;
    const out = join(temporaryDirectory(), "run");
    beforeAll(async () => {
      server = await startMockLlmServer({ models: ["sim", "agent", "judge"], reply: aebMockReply });
      const endpoint = (model: string) => ({ baseUrl: server.url, model });
      const config = parseRunConfig(
        {
          scenarios: { suite: "starter", types: ["escalation", "emotional_flooding"] },
          simulator: { kind: "llm", endpoint: endpoint("sim") },
          conditions: [
            { name: "model", agent: { kind: "llm", think: true, endpoint: endpoint("agent") } },
            { name: "attuned", agent: { kind: "reference", id: "attuned" } },
          ],
          judges: {
            ecs: [{ name: "judge", kind: "llm", endpoint: endpoint("judge") }],
            hid: [{ name: "hid", kind: "llm", endpoint: endpoint("judge") }],
          },
        },
        "test",
      );
      await runBenchmark({ config, outDir: out });
      await judgeRun({
        dir: out,
        config: parseRunConfig({ judges: { ecs: [{ name: "later", kind: "offline" }] } }, "test"),
        concurrency: 2,
        rejudge: false,
      });
      await server.close();
    });

    it("accepts every line and file the run wrote", () => {
      for (const [index, line] of jsonLines(join(out, "dialogues.jsonl")).entries())
        expectValid("dialogue-record.schema.json", line, `dialogues.jsonl line ${index + 1}`);
      for (const [index, line] of jsonLines(join(out, "judgements.jsonl")).entries())
        expectValid("judgement-line.schema.json", line, `judgements.jsonl line ${index + 1}`);
      for (const [index, line] of jsonLines(join(out, "usage.jsonl")).entries())
        expectValid("usage-event.schema.json", line, `usage.jsonl line ${index + 1}`);
      expectValid("summary.schema.json", JSON.parse(readFileSync(join(out, "summary.json"), "utf8")), "summary.json");
      expectValid("run-manifest.schema.json", JSON.parse(readFileSync(join(out, "run.json"), "utf8")), "run.json");
    });
  });
});
