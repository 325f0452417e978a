/**
 * The layer rules of .dependency-cruiser.cjs (docs/architecture.md) catch what they are meant to
 * catch: a report that imports the runner, an import circle, a CLI command that imports another,
 * a test double used outside tests. `npm test` runs the same rules over src/ (`npm run
 * check:layers`); here they run over small trees made to break them, and the allow-lists are held
 * to the code: each points down the tiers, and each edge it allows is one src/ uses.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "./helpers/cli.js";

const root = resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
interface Layers {
  tiers: string[][];
  imports: Record<string, string[]>;
  testingImporters: Record<string, string>;
}
const rules = require(join(root, ".dependency-cruiser.cjs")) as IConfiguration & { layers: Layers };
const { tiers, imports, testingImporters } = rules.layers;

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
    return (result.output as ICruiseResult).summary.violations.map(
      (violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`,
    );
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
      "src/probe/search.ts":
        'import { step } from "../episode/step.ts";\nimport { plugins } from "../runner/plugins.ts";\nexport const search = step + plugins;\n',
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

  it("refuse a CLI command that imports another command, and let both import a module of src/cli/", async () => {
    const violations = await violationsOf({
      "src/cli/run-config-flags.ts": "export const configFromFlags = 1;\n",
      "src/cli/commands/run.ts": 'import { configFromFlags } from "../run-config-flags.ts";\nexport const run = configFromFlags;\n',
      "src/cli/commands/serve.ts": 'import { configFromFlags } from "../run-config-flags.ts";\nexport const serve = configFromFlags;\n',
      "src/cli/commands/probe.ts": 'import { run } from "./run.ts";\nexport const probe = run;\n',
    });
    expect(violations).toEqual(["cli-command-imports-command: src/cli/commands/probe.ts -> src/cli/commands/run.ts"]);
  });

  it("keep src/testing/ to tests and the CLI commands named for it, and the server off the runner", async () => {
    const named = Object.keys(testingImporters);
    expect(named).toContain("src/cli/commands/serve.ts");
    const violations = await violationsOf({
      "src/testing/delayed-user.ts": "export const delayed = 1;\n",
      "src/runner/run-config.ts": "export const config = 1;\n",
      "src/cli/commands/serve.ts": 'import { delayed } from "../../testing/delayed-user.ts";\nexport const serve = delayed;\n',
      "src/cli/commands/view.ts": 'import { delayed } from "../../testing/delayed-user.ts";\nexport const view = delayed;\n',
      "src/server/app.ts":
        'import { delayed } from "../testing/delayed-user.ts";\nimport { config } from "../runner/run-config.ts";\nexport const app = delayed + config;\n',
      "src/index.ts": 'export { delayed } from "./testing/delayed-user.ts";\n',
      "src/server/app.test.ts": 'import { delayed } from "../testing/delayed-user.ts";\nexport const check = delayed;\n',
    });
    expect(violations.sort()).toEqual(
      [
        "testing-outside-tests: src/cli/commands/view.ts -> src/testing/delayed-user.ts",
        "testing-outside-tests: src/index.ts -> src/testing/delayed-user.ts",
        "testing-outside-tests: src/server/app.ts -> src/testing/delayed-user.ts",
        "layer-server: src/server/app.ts -> src/testing/delayed-user.ts",
        "layer-server: src/server/app.ts -> src/runner/run-config.ts",
      ].sort(),
    );
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

describe("the allow-lists", () => {
  const tierOf = new Map(tiers.flatMap((tier, index) => tier.map((folder) => [folder, index] as const)));

  it("place every folder of src/ in one tier, with a list of what it imports", () => {
    const folders = readdirSync(join(root, "src")).filter((name) => statSync(join(root, "src", name)).isDirectory());
    expect(tiers.flat().sort()).toEqual([...folders].sort());
    expect(Object.keys(imports).sort()).toEqual([...folders].sort());
  });

  it("point every allowed edge down the tiers (or across one), never up", () => {
    const upward = Object.entries(imports).flatMap(([folder, allowed]) =>
      allowed.filter((target) => (tierOf.get(target) ?? -1) < (tierOf.get(folder) as number)).map((target) => `${folder} -> ${target}`),
    );
    expect(upward).toEqual([]);
    expect(imports.server).not.toContain("runner");
    expect(imports.server).not.toContain("report");
  });

  it("allow exactly the edges src/ uses", () => {
    const bin = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
    const output = execFileSync(process.execPath, [bin, "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const cruised = JSON.parse(output) as ICruiseResult;
    const folderOf = (path: string) => /^src\/([^/]+)\//.exec(path)?.[1];
    const used = new Set<string>();
    for (const module of cruised.modules) {
      const from = folderOf(module.source);
      if (from === undefined || module.source.endsWith(".test.ts")) continue;
      for (const dependency of module.dependencies) {
        const to = folderOf(dependency.resolved);
        if (to !== undefined && to !== from) used.add(`${from} -> ${to}`);
      }
    }
    const allowed = Object.entries(imports).flatMap(([folder, targets]) => targets.map((target) => `${folder} -> ${target}`));
    // Used but not allowed is what check:layers refuses; allowed but not used is a list to trim.
    expect(allowed.filter((edge) => !used.has(edge))).toEqual([]);
    expect([...used].filter((edge) => !allowed.includes(edge))).toEqual([]);
  }, 60_000);
});
