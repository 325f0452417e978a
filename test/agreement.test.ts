/**
 * `aeb agreement` end to end, in process: SAGE's three models under the DeepSeek-V3 and the GPT-4o
 * simulators (../shared/data/sage/cross-simulator, skipped when absent), and two runs of the same
 * reference agents under two really different simulated users, the offline rule-based user and an
 * LLM user (the mock server's AEB policy, whose appraisals do not read the reply's moves). Every
 * figure is checked against scripts/make-agreement-vectors.py: the committed fixture for SAGE's
 * files, the script itself (when python3 with scipy is here) for the runs made in the test.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgreementReportSchema, type AgreementReport } from "../src/analysis/agreement-schema.js";
import { agreementMismatches, agreementVectors, type ExpectedPair } from "../src/analysis/fixtures/agreement-vectors.js";
import { packageRoot } from "../src/core/data-files.js";
import { startMockLlmServer, type MockLlmServer } from "../src/testing/mock-llm-server.js";
import { aebMockReply } from "../src/testing/aeb-mock-policy.js";
import { parseRunConfig } from "../src/runner/run-config.js";
import { runBenchmark } from "../src/runner/run-benchmark.js";
import { runCli, temporaryDirectory } from "./helpers/cli.js";

const CROSS = join(packageRoot, "..", "shared", "data", "sage", "cross-simulator");
const vectors = agreementVectors();
const crossReady = existsSync(CROSS) && vectors.crossSimulator !== undefined;
if (!crossReady)
  console.warn(`agreement: no ${CROSS} (or no cross-simulator case in the fixture); the SAGE cross-simulator test is skipped`);
const hasScipy = spawnSync("python3", ["-c", "import scipy, numpy"]).status === 0;
if (!hasScipy)
  console.warn(
    "agreement: python3 with scipy is not available; the figures of the runs made here are checked for shape only, not against scipy",
  );

const readReport = (dir: string): AgreementReport =>
  AgreementReportSchema.parse(JSON.parse(readFileSync(join(dir, "agreement.json"), "utf8")));

describe.skipIf(!crossReady)("aeb agreement on SAGE's files: three models under DeepSeek-V3 and under GPT-4o", () => {
  it("ranks the three models identically, shows how weakly the same profiles agree, and matches scipy figure by figure", async () => {
    const out = join(temporaryDirectory(), "sage-agreement");
    const result = await runCli(["agreement", join(CROSS, "deepseek-v3"), join(CROSS, "gpt-4o"), "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const report = readReport(out);
    // Labels from the folders; the fixture's seed and resamples are the command's defaults.
    expect(report.users.map((user) => [user.label, user.dialogues, user.agents])).toEqual([
      ["deepseek-v3", 300, ["claude3.7", "deepseek-v3-1227", "openai-o1"]],
      ["gpt-4o", 300, ["claude3.7", "deepseek-v3-1227", "openai-o1"]],
    ]);
    expect([report.seed, report.resamples]).toEqual([vectors.crossSimulator!.seed, vectors.crossSimulator!.resamples]);
    expect(agreementMismatches(report.pairs, vectors.crossSimulator!.expected)).toEqual([]);
    const [pair] = report.pairs;
    expect(pair?.ranking.sameOrder).toBe(true);
    expect(pair?.unmatched).toEqual([]);
    // The finding, in words, on the terminal and in both reports.
    expect(pair?.finding).toMatch(
      /^The two simulated users \(A: deepseek-v3, B: gpt-4o\) rank the 3 shared agents identically \(Spearman 1\.00, Kendall tau-b 1\.00, 95% CI \[0\.50, 1\.00\]\), but final emotions on the same profile correlate only 0\.22-0\.45 \(Pearson, per agent; 0\.37 pooled\)/,
    );
    expect(pair?.finding).toContain("gpt-4o scores every agent higher than deepseek-v3, by 11.9 to 28.1 points of final emotion.");
    expect(result.stdout).toContain(pair!.finding);
    expect(result.stdout).toMatch(
      /\nclaude3\.7\s+100\s+54\.8\s+70\.3\s+\+15\.5 \[\+6\.9, \+24\.3\]\s+0\.282\s+0\.275\s+48\.0% \(48\/100\)\s+0\s+0\n/,
    );
    const markdown = readFileSync(join(out, "agreement.md"), "utf8");
    expect(markdown).toContain(
      "| agent | matched | mean A | mean B | shift B - A [95% CI] | Pearson r | Spearman rho | same outcome | only in A | only in B |",
    );
    expect(markdown).toContain("| deepseek-v3-1227 | 100 | 37.5 | 65.6 | +28.1 [+20.7, +35.7] | 0.447 | 0.393 |");
    // A self-contained page with its two charts drawn.
    const page = readFileSync(join(out, "agreement.html"), "utf8");
    expect(page).not.toMatch(/https?:\/\/|<script|<link|<img/i);
    for (const id of ["chart-pair-1-means", "chart-pair-1-dialogues"])
      expect(page).toMatch(new RegExp(`<figure class="chart" id="${id}">[\\s\\S]*?<svg[\\s\\S]*?</svg>`));
    expect(page.match(/class="mark-line role-mark/g)?.length).toBeGreaterThanOrEqual(1);
  });
});

describe("aeb agreement on two runs under different simulated users: the offline user and an LLM user", () => {
  let root: string;
  let server: MockLlmServer;
  const runs = { offline: "", llm: "" };
  const AGENTS = ["formulaic", "sycophant", "attuned"];

  beforeAll(async () => {
    root = temporaryDirectory("aeb-agreement-");
    server = await startMockLlmServer({ models: ["sim"], reply: aebMockReply });
    const base = {
      seed: 3,
      concurrency: 8,
      scenarios: { suite: "starter", types: ["escalation", "gaslighting"] },
      judges: { ecs: [], hid: [] },
      conditions: AGENTS.map((id) => ({ name: id, agent: { kind: "reference" as const, id } })),
    };
    const endpoint = {
      baseUrl: server.url,
      model: "sim",
      maxRetries: 1,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 5,
      timeoutMs: 5000,
      idleTimeoutMs: 2000,
    };
    runs.offline = join(root, "offline");
    runs.llm = join(root, "llm-user");
    const offline = await runBenchmark({ config: parseRunConfig(base, "test"), outDir: runs.offline });
    const llm = await runBenchmark({ config: parseRunConfig({ ...base, simulator: { kind: "llm", endpoint } }, "test"), outDir: runs.llm });
    expect([offline.errors, llm.errors]).toEqual([0, 0]);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it("labels each run by its simulated user, matches every dialogue, and agrees with scipy", async () => {
    const result = await runCli([
      "agreement",
      runs.offline,
      runs.llm,
      "--resamples",
      "400",
      "--seed",
      "5",
      "--out",
      join(root, "agreement"),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = readReport(join(root, "agreement"));
    expect(report.users.map((user) => [user.label, user.dialogues, user.agents])).toEqual([
      ["offline", 12, AGENTS],
      ["sim", 12, AGENTS],
    ]);
    const [pair] = report.pairs;
    expect(pair).toMatchObject({ a: "offline", b: "sim", sharedAgents: AGENTS, matchedDialogues: 12, unmatched: [] });
    expect(pair?.ranking.units).toBe(4);
    expect(pair?.ranking.spearman).not.toBeNull();
    expect(JSON.stringify(report)).not.toMatch(/NaN|Infinity/);
    expect(result.stdout).toContain("== A: offline  vs  B: sim");
    if (!hasScipy) return;
    // The script reads the two directories itself and computes every figure with scipy.
    const script = spawnSync(
      "python3",
      [join(packageRoot, "scripts", "make-agreement-vectors.py"), "--check", "5", "400", `offline=${runs.offline}`, `sim=${runs.llm}`],
      { encoding: "utf8", cwd: packageRoot, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(script.status, script.stderr).toBe(0);
    expect(agreementMismatches(report.pairs, JSON.parse(script.stdout) as ExpectedPair[])).toEqual([]);
  });

  it("takes LABEL=PATH[,PATH...], labels a directory without run.json by its folder, and compares every pair of three users", async () => {
    // The LLM run's dialogues.jsonl alone, in a folder of its own: no run.json, so the folder names it.
    const bare = join(root, "mistral-user");
    mkdirSync(bare);
    writeFileSync(join(bare, "dialogues.jsonl"), readFileSync(join(runs.llm, "dialogues.jsonl")));
    const hostile = '<script>alert("x")<';
    const out = join(root, "three");
    const result = await runCli([
      "agreement",
      `${hostile}=${runs.offline}`,
      join(bare, "dialogues.jsonl"),
      `both=${runs.offline}/dialogues.jsonl`,
      "--resamples",
      "50",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    for (const header of [`== A: ${hostile}  vs  B: mistral-user`, `== A: ${hostile}  vs  B: both`, "== A: mistral-user  vs  B: both"])
      expect(result.stdout).toContain(header);
    expect(readReport(out).pairs).toHaveLength(3);
    // A label is text in the page, never markup.
    const page = readFileSync(join(out, "agreement.html"), "utf8");
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;");
    expect(readFileSync(join(out, "agreement.md"), "utf8")).not.toContain("<script>");
  });

  it("exits non-zero, saying why and what to give, when the simulated users share no agent; warns for one such pair among others", async () => {
    // The LLM run's dialogues with every condition renamed: no agent in common with the offline run.
    const renamed = join(root, "renamed");
    mkdirSync(renamed);
    const lines = readFileSync(join(runs.llm, "dialogues.jsonl"), "utf8").split("\n").filter(Boolean);
    const renamedLine = (line: string) => {
      const record = JSON.parse(line) as { condition: string; id: string };
      return `${JSON.stringify({ ...record, condition: `other-${record.condition}`, id: `other-${record.id}` })}\n`;
    };
    writeFileSync(join(renamed, "dialogues.jsonl"), lines.map(renamedLine).join(""));
    const out = join(root, "disjoint");
    const result = await runCli(["agreement", runs.offline, renamed, "--resamples", "50", "--out", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "the simulated users share no agent, so there is no agreement to measure (agents are matched by condition name). offline has formulaic, sycophant, attuned; renamed has other-attuned, other-formulaic, other-sycophant.",
    );
    expect(result.stderr).toContain("Give runs of the same agents under each simulated user");
    expect(existsSync(join(out, "agreement.json"))).toBe(false);
    // Three users, one of them sharing nothing: the rest is compared, that pair is warned about.
    const three = await runCli(["agreement", runs.offline, runs.llm, renamed, "--resamples", "50"]);
    expect(three.code, three.stderr).toBe(0);
    expect(three.stderr).toContain("warning: offline and renamed share no agent");
    expect(three.stderr).toContain("warning: sim and renamed share no agent");
    expect(three.stdout).toContain("== A: offline  vs  B: sim");
  });

  it("names what is wrong with its arguments", async () => {
    const error = async (args: string[]) => (await runCli(["agreement", ...args])).stderr;
    expect(await error([runs.offline])).toContain("give at least two (got 1)");
    expect(await error([runs.offline, runs.offline])).toContain('two simulated users are labelled "offline"; name them apart (LABEL=PATH)');
    expect(await error([runs.offline, join(root, "missing")])).toContain(`${join(root, "missing")} does not exist`);
    expect(await error([runs.offline, root])).toContain(`${root} has neither dialogues.jsonl nor SAGE result files (*_result.jsonl)`);
    expect(await error([`=${runs.llm}`, runs.offline])).toContain('the label before "=" is empty');
    expect(await error([`mixed=${runs.offline},${runs.llm}`, runs.offline])).toContain("has two scored dialogues of agent formulaic");
    expect(await error([`${runs.offline},${runs.llm}`, runs.offline])).toContain(
      `the paths of one simulated user name different simulated users (offline from ${runs.offline}, sim from ${runs.llm}); label it: LABEL=`,
    );
    expect(await error([runs.offline, runs.llm, "--resamples", "0"])).toContain("expected a positive integer");
  });
});
