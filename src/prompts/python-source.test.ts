import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../core/data-files.js";
import { PythonSourceError, scanPythonPrompts, tokenizePython } from "./python-source.js";

const strings = (source: string) => tokenizePython(source).flatMap((token) => (token.kind === "string" ? [token.value] : []));

describe("tokenizePython: string literals as Python reads them", () => {
  it("reads every quoting form, with quotes, # and braces inside", () => {
    const source = [
      `a = "double 'single' # not a comment"  # a comment with "quotes"`,
      `b = 'single "double"'`,
      `c = """triple "quoted" ''' text`,
      `over lines {{x}}"""`,
      `d = '''other 'triple' """ kind'''`,
    ].join("\n");
    expect(strings(source)).toEqual([`double 'single' # not a comment`, `single "double"`, `triple "quoted" ''' text\nover lines {{x}}`, `other 'triple' """ kind`]);
  });

  it("decodes escapes, keeps raw strings raw and unknown escapes as written", () => {
    expect(strings(String.raw`x = "a\nb\t\"q\" \x41\u00e9 \101 \d \\ end"`)).toEqual(['a\nb\t"q" Aé A \\d \\ end']);
    expect(strings(String.raw`x = r"a\nb\"c"`)).toEqual([String.raw`a\nb\"c`]);
    expect(strings('x = "joined \\\nline"')).toEqual(["joined line"]);
    expect(strings(String.raw`x = b"\x41\u00e9"`)).toEqual([String.raw`A\u00e9`]);
  });

  it("reads f-strings with nested fields, quotes and doubled braces", () => {
    const source = `x = f"{{literal}} {data['key']} and {', '.join(f'{v}' for v in items)!r:>{width}} end"`;
    expect(tokenizePython(source).find((token) => token.kind === "string")).toMatchObject({ fString: true, value: `{literal} {data['key']} and {', '.join(f'{v}' for v in items)!r:>{width}} end` });
  });

  it("joins lines inside brackets and after a backslash into one logical line", () => {
    const kinds = tokenizePython('x = (\n  "a"\n  "b"\n)\ny = 1 + \\\n 2\n').map((token) => token.kind);
    expect(kinds.filter((kind) => kind === "newline")).toHaveLength(2);
  });

  it("names the line of an unterminated string or bracket", () => {
    expect(() => tokenizePython('a = 1\nb = """never closed\n\n')).toThrow(new PythonSourceError("line 2: a string is never closed"));
    expect(() => tokenizePython("a = 1\nb = 'open\n")).toThrow("line 2: a string is never closed on its line");
    expect(() => tokenizePython("a = (1,\n2\n")).toThrow("a bracket is never closed");
    expect(() => tokenizePython("a = 1)\n")).toThrow("line 1: unmatched ')'");
  });
});

describe("scanPythonPrompts", () => {
  const source = [
    "target = {",
    '    "eq": """heart to heart""",',
    "    'other': 'x' 'y',",
    "    'nested': {'a': 1},",
    "}",
    "class Player:",
    "    def planning(self, data):",
    '        template = """You are {{role}}."""',
    "        request = {'model': 'm', 'messages': [{'role': 'user'}], 'temperature': 0.5}",
    '        mapping = {"user": "你", "assistant": "NPC"}',
    "",
    "    def reply(self, planning):",
    '        template = ("part one "',
    "                    'part two')",
    '        prompt = template.replace("{{planning}}", "objective:\\n" + planning["reason"] + "\\nsubjective:\\n" + planning[\'analyse\']).replace("{{role}}", str(data))',
    "top = 'module level'",
    "pair = ('a tuple', 'not a string')",
    "joined = ('a') + suffix",
  ].join("\n");
  const scan = scanPythonPrompts(source);

  it("finds string assignments with the function they are in", () => {
    expect(scan.strings.map((entry) => [entry.scope, entry.name, entry.value])).toEqual([
      ["planning", "template", "You are {{role}}."],
      ["reply", "template", "part one part two"],
      [null, "top", "module level"],
    ]);
  });

  it("finds dicts of strings, numbers in dict literals, and replace calls with their parts", () => {
    expect(scan.dicts.find((dict) => dict.name === "target")).toMatchObject({ scope: null, entries: { eq: "heart to heart", other: "xy" } });
    expect(scan.dicts.find((dict) => dict.name === "mapping")).toMatchObject({ scope: "planning", entries: { user: "你", assistant: "NPC" } });
    expect(scan.numbers).toEqual([
      { scope: null, key: "a", value: 1, line: 4 },
      { scope: "planning", key: "temperature", value: 0.5, line: 9 },
    ]);
    expect(scan.replaces.map((call) => [call.scope, call.target, call.parts])).toEqual([
      [
        "reply",
        "{{planning}}",
        [
          { kind: "string", value: "objective:\n" },
          { kind: "subscript", name: "planning", key: "reason" },
          { kind: "string", value: "\nsubjective:\n" },
          { kind: "subscript", name: "planning", key: "analyse" },
        ],
      ],
      ["reply", "{{role}}", [{ kind: "other", text: "str(data)" }]],
    ]);
  });
});

/** The upstream files the extractor reads, and Python's own reading of their string literals. */
const REFERENCE = join(packageRoot, "..", "shared", "reference");
const UPSTREAM = [
  join(REFERENCE, "sage-digitalhuman", "SAGE", "simulator_response.py"),
  join(REFERENCE, "rlver-digitalhuman", "RLVER", "code", "verl", "workers", "rollout", "vllm_rollout", "hard_player_simulator_dsv3.py"),
].filter((file) => existsSync(file));
const PYTHON_STRINGS = `
import io, json, sys, tokenize, ast
files = []
for path in sys.argv[1:]:
    values = []
    for token in tokenize.generate_tokens(io.StringIO(open(path, encoding="utf-8").read()).readline):
        if token.type == tokenize.STRING:
            values.append(ast.literal_eval(token.string))
    files.append(values)
print(json.dumps(files, ensure_ascii=False))
`;

describe.skipIf(UPSTREAM.length === 0)(`the upstream files, against Python's own tokenizer${UPSTREAM.length === 0 ? " [skipped: ../shared/reference is absent]" : ""}`, () => {
  it("reads every string literal of SAGE's and RLVER's simulators exactly as Python does", (context) => {
    // One interpreter for all files, without site packages: its start-up is most of the cost.
    const result = spawnSync("python3", ["-S", "-I", "-c", PYTHON_STRINGS, ...UPSTREAM], { encoding: "utf8" });
    if (result.error !== undefined) context.skip("python3 is not available");
    expect(result.status, result.stderr).toBe(0);
    const expected = JSON.parse(result.stdout) as string[][];
    UPSTREAM.forEach((file, index) => {
      expect(expected[index]!.length).toBeGreaterThan(20);
      expect(strings(readFileSync(file, "utf8")), file).toEqual(expected[index]);
    });
  });
});
