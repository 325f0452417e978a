import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, commandsNeeded } from "../src/cli/program.js";
import { CLI, runCli } from "./helpers/cli.js";

describe("aeb loads only the command it runs", () => {
  it("needs no command for --version, one for a named command, all for help and typos", () => {
    expect(commandsNeeded(["--version"])).toEqual([]);
    expect(commandsNeeded(["-V"])).toEqual([]);
    expect(commandsNeeded(["run", "--limit", "2"])).toEqual(["run"]);
    expect(commandsNeeded(["scenarios", "list"])).toEqual(["scenarios"]);
    expect(commandsNeeded(["--help"])).toEqual(COMMAND_NAMES);
    expect(commandsNeeded([])).toEqual(COMMAND_NAMES);
    expect(commandsNeeded(["help", "run"])).toEqual(COMMAND_NAMES);
    expect(commandsNeeded(["rn"])).toEqual(COMMAND_NAMES);
  });

  it("still lists every command in --help and suggests the nearest for a typo", async () => {
    const help = await runCli(["--help"]);
    for (const name of COMMAND_NAMES) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    const typo = await runCli(["rn"]);
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toContain("Did you mean run?");
  });

  it("prints the version without importing any command module, YAML parser or HTTP stack", () => {
    // A loader hook in the child reports every module URL it resolves.
    const hook = `data:text/javascript,${encodeURIComponent(
      "export async function resolve(s, c, n) { const r = await n(s, c); process.stderr.write('LOADED ' + r.url + '\\n'); return r; }",
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(hook)});`)}`;
    const child = spawnSync(process.execPath, ["--import", register, CLI, "--version"], { encoding: "utf8" });
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const loaded = child.stderr
      .split("\n")
      .filter((line) => line.startsWith("LOADED "))
      .map((line) => line.slice(7));
    expect(loaded.some((url) => url.includes("/cli/program.js"))).toBe(true);
    const heavy = loaded.filter((url) => /\/cli\/commands\/|node_modules\/(yaml|fastify|undici|openai|vega|vega-lite|zod)\//.test(url));
    expect(heavy).toEqual([]);
  });
});
