/**
 * The layer rules of .dependency-cruiser.cjs (docs/architecture.md) catch what they are meant to
 * catch: a report that imports the runner, an import circle. `npm test` runs the same rules over
 * src/ (`npm run check:layers`); here they run over a small tree made to break them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "./helpers/cli.js";

const rules = createRequire(import.meta.url)(resolve(import.meta.dirname, "..", ".dependency-cruiser.cjs")) as IConfiguration;

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const root = temporaryDirectory("aeb-layers-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(["src"], { ruleSet: { forbidden: rules.forbidden }, validate: true, tsPreCompilationDeps: true });
    return (result.output as ICruiseResult).summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe("the layer rules", () => {
  it("refuse a report that imports the runner, and a record that imports the report", async () => {
    const violations = await violationsOf({
      "src/runner/run.ts": "export const run = 1;\n",
      "src/report/page.ts": 'import { run } from "../runner/run.ts";\nexport const page = run;\n',
      "src/record/file.ts": 'import { page } from "../report/page.ts";\nexport const file = page;\n',
    });
    expect(violations).toContain("layer-report: src/report/page.ts -> src/runner/run.ts");
    expect(violations).toContain("layer-record: src/record/file.ts -> src/report/page.ts");
  });

  it("keep the probe beside the runner: it may use the episode, not the runner, and nothing below imports it", async () => {
    const violations = await violationsOf({
      "src/episode/step.ts": "export const step = 1;\n",
      "src/runner/plugins.ts": "export const plugins = 1;\n",
      "src/probe/search.ts": 'import { step } from "../episode/step.ts";\nimport { plugins } from "../runner/plugins.ts";\nexport const search = step + plugins;\n',
      "src/report/page.ts": 'import { search } from "../probe/search.ts";\nexport const page = search;\n',
    });
    expect(violations).toContain("layer-probe: src/probe/search.ts -> src/runner/plugins.ts");
    expect(violations).toContain("layer-report: src/report/page.ts -> src/probe/search.ts");
    expect(violations.some((violation) => violation.includes("-> src/episode/step.ts"))).toBe(false);
  });

  it("refuse an import circle, even inside one layer", async () => {
    const violations = await violationsOf({
      "src/metrics/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "src/metrics/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
    });
    expect(violations.some((violation) => violation.startsWith("no-circular: src/metrics/a.ts"))).toBe(true);
  });

  it("let a layer import the layers below it", async () => {
    const violations = await violationsOf({
      "src/core/types.ts": "export const base = 1;\n",
      "src/analysis/summary.ts": 'import { base } from "../core/types.ts";\nexport const summary = base;\n',
      "src/report/page.ts": 'import { summary } from "../analysis/summary.ts";\nexport const page = summary;\n',
    });
    expect(violations).toEqual([]);
  });
});
