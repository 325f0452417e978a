/**
 * The package's public faces (package.json `exports`, docs/architecture.md): the main entry is a
 * curated list under 60 names, types included, and each subpath is an index file of its folder
 * that names what it exports (no `export *`, which would publish a folder's internals with it).
 * Names are read from the sources with the TypeScript checker, so they are what a user's
 * `import * as aeb from "aeb"` and its .d.ts expose, values and types alike.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; import: string }>;
};

/** Each subpath of `exports` with the source file its dist/ target is built from (tsconfig.build.json: src/ -> dist/). */
const faces = Object.entries(packageJson.exports)
  .filter((entry): entry is [string, { types: string; import: string }] => typeof entry[1] !== "string")
  .map(([subpath, target]) => {
    const built = /^\.\/dist\/(.+)\.js$/.exec(target.import)?.[1];
    if (built === undefined) throw new Error(`package.json exports["${subpath}"].import is ${target.import}, not ./dist/....js`);
    return { subpath, target, source: join(root, "src", `${built}.ts`) };
  });

function exportedNames(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const source = program.getSourceFile(file);
      const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${file} is not a module TypeScript can read`);
      return [
        file,
        checker
          .getExportsOfModule(module)
          .map((symbol) => symbol.name)
          .sort(),
      ];
    }),
  );
}

const names = exportedNames(faces.map((face) => face.source));
const namesOf = (subpath: string) => names.get(faces.find((face) => face.subpath === subpath)!.source)!;

describe("the public faces", () => {
  it("are the main entry and the record, llm, stats, server, probe and testing subpaths, each an index file with its types beside it", () => {
    expect(faces.map((face) => face.subpath)).toEqual([".", "./record", "./llm", "./stats", "./server", "./probe", "./testing"]);
    for (const face of faces) {
      expect(face.target.types).toBe(face.target.import.replace(/\.js$/, ".d.ts"));
      expect(face.source.endsWith("index.ts")).toBe(true);
    }
  });

  it("name what they export: no `export *` of a folder's modules", () => {
    for (const face of faces)
      expect({ face: face.subpath, wildcard: /^export \*/m.test(readFileSync(face.source, "utf8")) }).toEqual({
        face: face.subpath,
        wildcard: false,
      });
  });

  it("keep the main entry to running, judging, reporting and serving, under 60 names", () => {
    const main = namesOf(".");
    expect(main.length).toBeLessThan(60);
    expect(main).toEqual(
      [
        // running
        "runBenchmark",
        "RunOptions",
        "RunResult",
        "RunEvents",
        "parseRunConfig",
        "loadRunConfig",
        "RunConfig",
        "RunConfigInput",
        "Agent",
        "AgentInput",
        "AgentReply",
        "createReferenceAgent",
        "REFERENCE_AGENT_IDS",
        "ReferenceAgentId",
        "SimulatedUser",
        "OfflineSimulatedUser",
        "LlmSimulatedUser",
        "LlmUserOptions",
        "Scenario",
        "BUILTIN_SCENARIO_DIR",
        "loadScenarioDirectory",
        "filterScenarios",
        "getPreset",
        "PresetName",
        "Preset",
        "TrajectoryType",
        "startEpisode",
        "step",
        "EpisodeError",
        "StepContext",
        "StepError",
        "StepStage",
        "EpisodeState",
        "DialogueRecord",
        "TurnRecord",
        // judging
        "judgeRun",
        "JudgeRunOptions",
        "JudgeRunResult",
        // reporting
        "RunSummary",
        "loadRunForReport",
        "reportInputOf",
        "ReportInput",
        "renderMarkdownReport",
        "renderHtmlReport",
        "writeReportFiles",
        "compareRuns",
        "renderComparisonMarkdown",
        "RunComparison",
        // serving
        "buildServer",
        "ServerOptions",
        "EnvironmentServer",
        // errors
        "AebError",
        "ConfigError",
        "ScenarioError",
        "RunDirectoryError",
        "RunStoppedError",
      ].sort(),
    );
  });

  it("leave the test doubles and the probe to their own faces", () => {
    const main = namesOf(".");
    for (const name of ["DelayedSimulatedUser", "startMockLlmServer", "aebMockReply", "scriptedChatModel"]) {
      expect(main).not.toContain(name);
      expect(namesOf("./testing")).toContain(name);
    }
    expect(namesOf("./llm")).not.toContain("startMockLlmServer");
    expect(namesOf("./server")).not.toContain("DelayedSimulatedUser");
    expect(main).not.toContain("runProbe");
    expect(namesOf("./probe")).toContain("runProbe");
    expect(main).not.toContain("probeRewardHacking");
    expect(namesOf("./server")).toContain("probeRewardHacking");
  });

  it("give aeb/record the readers and schemas README.md names", () => {
    for (const name of ["readDialogueRecords", "readDialogueRows", "loadRun", "RunSummarySchema", "readSummaryFile", "DIALOGUES_FILE"])
      expect(namesOf("./record")).toContain(name);
  });
});
