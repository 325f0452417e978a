/**
 * `npm run bench:prefix`: how much of each prompt a server's prefix cache (vLLM's automatic prefix
 * caching, SGLang's radix cache) can reuse, per prompt pack and role.
 *
 * Every prompt pack plays one scenario of each of the six types (the first of each type in the
 * `full` suite), in English and in Chinese (the same scenarios with their language set to `zh`, so
 * the zh templates are what is measured), through the real agent, simulated user and judges, with
 * every model replaced by a logging mock: the mock server's AEB reply policy in memory
 * (src/testing/policy-chat-model.ts), which records each request's messages. A request's text is its
 * messages in ChatML (`<|im_start|>role\ncontent<|im_end|>\n`), what a Qwen-style chat template
 * gives the server.
 *
 * For each role (the sampleKey without the dialogue, turn and try: `simulator-appraisal`, `ecs`,
 * `agent`...), each prompt is compared with the previous prompt of the same role in the same
 * dialogue:
 *   reuse          the share of the prompt that is a prefix of the previous one (mean over the
 *                  prompts that have a previous one)
 *   prefilled      characters the server computes: the whole first prompt of a dialogue, then
 *                  what follows the common prefix
 *   append-only    the least an append-only layout prefills: the whole first prompt, then only
 *                  what the prompt adds in length (max(0, length - previous length))
 *   ratio          prefilled / append-only minimum (1.0: nothing recomputed but what is new)
 *
 * Flags: --json FILE (raw results; default runs/bench/prefix-<date>.json, with a .md beside it)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ecsJudgementFailed, hidJudgementFailed } from "../src/core/judgement.js";
import type { ChatModel, ChatRequest } from "../src/llm/chat-model.js";
import { policyChatModel } from "../src/testing/policy-chat-model.js";
import { runEpisode } from "../src/episode/step.js";
import { judgeDialogue, type NamedJudges } from "../src/runner/dialogue-judgements.js";
import { PluginFactory } from "../src/runner/plugins.js";
import { selectScenarios } from "../src/runner/run-benchmark.js";
import { parseRunConfig, type RunConfigInput } from "../src/runner/run-config.js";
import { planRun } from "../src/runner/run-plan.js";
import type { Scenario } from "../src/scenarios/scenario-schema.js";
import { fixed, machine, markdownTable, parseArgs, reportPrinter, ROOT } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const seed = 1;

/** One configuration of the simulated user and the ECS judge's prompt. */
interface PackRun {
  label: string;
  pack: "aeb-json" | "sage" | "rlver" | "aeb-paper";
  fused: boolean;
  ecsPrompt: "aeb" | "aeb-paper";
  /** The project's own prompts (held to the target), or an upstream layout kept as it is. */
  own: boolean;
}

const RUNS: PackRun[] = [
  { label: "aeb-json", pack: "aeb-json", fused: false, ecsPrompt: "aeb", own: true },
  { label: "aeb-json fused", pack: "aeb-json", fused: true, ecsPrompt: "aeb", own: true },
  { label: "sage", pack: "sage", fused: false, ecsPrompt: "aeb", own: false },
  { label: "rlver", pack: "rlver", fused: false, ecsPrompt: "aeb", own: false },
  { label: "aeb-paper (+ paper ECS judge)", pack: "aeb-paper", fused: false, ecsPrompt: "aeb-paper", own: false },
];
const LANGUAGES = ["en", "zh"] as const;

/** The roles a run's prompts are grouped by, and the project's own among them. */
const ROLE_LABELS: Record<string, string> = {
  "simulator-appraisal": "user appraisal",
  "simulator-reply": "user reply",
  "simulator-fused": "fused",
  "simulator-opening": "opening",
  ecs: "ECS judge",
  hid: "HID judge",
  agent: "agent",
};

function configFor(run: PackRun): RunConfigInput {
  const endpoint = (model: string) => ({ baseUrl: "http://127.0.0.1:9/v1", model });
  return {
    seed,
    scenarios: { suite: "full" },
    simulator: { kind: "llm", fused: run.fused, promptPack: run.pack, endpoint: endpoint("simulator") },
    judges: {
      ecs: [{ name: "ecs-llm", kind: "llm", prompt: run.ecsPrompt, endpoint: endpoint("judge") }],
      hid: [{ name: "hid-llm", kind: "llm", endpoint: endpoint("judge") }],
    },
    conditions: [{ name: "agent", agent: { kind: "llm", think: false, endpoint: endpoint("agent") } }],
  };
}

/** The first scenario of each type, by id. */
function sixTypes(scenarios: readonly Scenario[]): Scenario[] {
  const first = new Map<string, Scenario>();
  for (const scenario of [...scenarios].sort((a, b) => a.id.localeCompare(b.id)))
    if (!first.has(scenario.type)) first.set(scenario.type, scenario);
  return [...first.values()];
}

interface LoggedPrompt {
  dialogue: string;
  role: string;
  text: string;
}

const chatml = (request: ChatRequest) =>
  request.messages.map((message) => `<|im_start|>${message.role}\n${message.content}<|im_end|>\n`).join("");

/** `d#turn3#simulator-appraisal#try0` -> dialogue `d`, role `simulator-appraisal`. */
function splitKey(sampleKey: string): { dialogue: string; role: string } {
  const [dialogue = "", ...rest] = sampleKey.split("#");
  return { dialogue, role: rest.filter((part) => !/^(turn|try)\d+$/.test(part) && part !== "opening").join("#") };
}

async function play(
  run: PackRun,
  language: (typeof LANGUAGES)[number],
): Promise<{ prompts: LoggedPrompt[]; dialogues: number; errors: string[] }> {
  const config = parseRunConfig(configFor(run), `bench:prefix ${run.label}`);
  const scenarios = sixTypes(selectScenarios(config)).map((scenario) => (language === "en" ? scenario : { ...scenario, language }));
  const prompts: LoggedPrompt[] = [];
  const plugins = new PluginFactory({
    modelFactory: (role, endpoint): ChatModel => {
      const inner = policyChatModel(endpoint.model, role);
      return {
        id: inner.id,
        role: inner.role,
        usage: () => inner.usage(),
        complete(request) {
          if (request.sampleKey === undefined) throw new Error(`a ${role} request without a sampleKey: the bench cannot tell its dialogue`);
          prompts.push({ ...splitKey(request.sampleKey), text: chatml(request) });
          return inner.complete(request);
        },
      };
    },
  });
  const user = plugins.simulatedUser(config.simulator, scenarios);
  const agent = plugins.agent("agent", (config.conditions[0] as (typeof config.conditions)[number]).agent);
  const judges: NamedJudges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };
  const errors: string[] = [];
  const tasks = planRun(config.conditions, scenarios, 1, config.seed);
  for (const task of tasks) {
    const record = await runEpisode({
      dialogueId: task.id,
      condition: task.condition.name,
      scenario: task.scenario,
      preset: task.preset,
      repeat: 0,
      seed: task.seed,
      agent,
      user,
    });
    if (record.error !== undefined) errors.push(`${task.id}: ${record.error}`);
    const judged = await judgeDialogue(record, task.scenario, judges);
    for (const [name, judgement] of Object.entries(judged.ecs))
      if (ecsJudgementFailed(judgement)) errors.push(`${task.id}: ECS judge ${name} could not read every turn`);
    for (const [name, judgement] of Object.entries(judged.hid))
      if (hidJudgementFailed(judgement)) errors.push(`${task.id}: HID judge ${name} gave no verdict`);
  }
  return { prompts, dialogues: tasks.length, errors };
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

interface RoleFigures {
  role: string;
  calls: number;
  reuse: number;
  prefilled: number;
  appendOnly: number;
  ratio: number;
}

function measureRoles(prompts: readonly LoggedPrompt[]): RoleFigures[] {
  const previous = new Map<string, string>();
  const byRole = new Map<string, { calls: number; shares: number[]; prefilled: number; appendOnly: number }>();
  for (const prompt of prompts) {
    const key = `${prompt.dialogue}\u0000${prompt.role}`;
    const before = previous.get(key);
    const entry = byRole.get(prompt.role) ?? { calls: 0, shares: [], prefilled: 0, appendOnly: 0 };
    entry.calls += 1;
    if (before === undefined) {
      entry.prefilled += prompt.text.length;
      entry.appendOnly += prompt.text.length;
    } else {
      const shared = commonPrefix(before, prompt.text);
      entry.shares.push(shared / prompt.text.length);
      entry.prefilled += prompt.text.length - shared;
      entry.appendOnly += Math.max(0, prompt.text.length - before.length);
    }
    previous.set(key, prompt.text);
    byRole.set(prompt.role, entry);
  }
  return [...byRole].map(([role, entry]) => ({
    role,
    calls: entry.calls,
    reuse: entry.shares.length === 0 ? Number.NaN : entry.shares.reduce((sum, share) => sum + share, 0) / entry.shares.length,
    prefilled: entry.prefilled,
    appendOnly: entry.appendOnly,
    ratio: entry.prefilled / entry.appendOnly,
  }));
}

interface Measured {
  run: PackRun;
  language: string;
  dialogues: number;
  errors: string[];
  roles: RoleFigures[];
  total: { prefilled: number; appendOnly: number; ratio: number };
}

async function main(): Promise<void> {
  const info = machine();
  const { out, print } = reportPrinter();
  print("# AEB prompt-prefix benchmark");
  print();
  print(`machine: ${info.nproc} CPUs (${info.cpu}), node ${info.node}; deterministic (no timing)`);
  print(`command: npm run bench:prefix${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
  print(
    "job: per pack and language, one scenario of each of the six types (suite full), one LLM agent (no think), LLM simulated user, LLM ECS and HID judges, every model the mock's reply policy in memory",
  );
  print();

  const results: Measured[] = [];
  for (const run of RUNS) {
    for (const language of LANGUAGES) {
      process.stderr.write(`${run.label} ${language}...\n`);
      const { prompts, dialogues, errors } = await play(run, language);
      const roles = measureRoles(prompts);
      const prefilled = roles.reduce((sum, role) => sum + role.prefilled, 0);
      const appendOnly = roles.reduce((sum, role) => sum + role.appendOnly, 0);
      results.push({ run, language, dialogues, errors, roles, total: { prefilled, appendOnly, ratio: prefilled / appendOnly } });
    }
  }

  const roleOrder = Object.keys(ROLE_LABELS);
  const cell = (measured: Measured, role: string) => {
    const figures = measured.roles.find((entry) => entry.role === role);
    return figures === undefined ? "-" : `${fixed(figures.reuse, 2)} (${fixed(figures.ratio, 2)}x)`;
  };
  print(
    "## Reuse per role: mean share of a prompt that is a prefix of the previous prompt of its role in its dialogue (prefilled / append-only minimum)",
  );
  print();
  print(
    markdownTable(
      [
        "pack",
        "language",
        "dialogues",
        "errors",
        ...roleOrder.map((role) => ROLE_LABELS[role] as string),
        "all roles: prefilled / append-only minimum",
      ],
      results.map((measured) => [
        measured.run.label,
        measured.language,
        measured.dialogues,
        measured.errors.length,
        ...roleOrder.map((role) => cell(measured, role)),
        `**${fixed(measured.total.ratio, 2)}x**`,
      ]),
    ),
  );
  print();
  print(
    "Roles with one prompt per dialogue (opening, HID judge) have no previous prompt: their ratio is 1 by construction, and their layout only matters across dialogues of one scenario.",
  );
  print();

  const unknownRoles = new Set(
    results.flatMap((measured) => measured.roles.map((role) => role.role)).filter((role) => !(role in ROLE_LABELS)),
  );
  if (unknownRoles.size > 0) print(`roles not tabled: ${[...unknownRoles].join(", ")}`);
  for (const measured of results)
    for (const error of measured.errors.slice(0, 5)) print(`error (${measured.run.label}, ${measured.language}): ${error}`);

  print("## Targets (the project's own packs and judges: aeb-json two-stage and fused, both languages)");
  print();
  let allMet = true;
  for (const measured of results.filter((entry) => entry.run.own)) {
    const worst = measured.roles.reduce((max, role) => (role.ratio > max.ratio ? role : max));
    const met = worst.ratio <= 1.2 && measured.errors.length === 0;
    allMet &&= met;
    print(
      `- ${measured.run.label} (${measured.language}): every role <= 1.2x and every output parsed: worst ${ROLE_LABELS[worst.role] ?? worst.role} ${fixed(worst.ratio, 2)}x, ${measured.errors.length} errors, ${met ? "met" : "NOT met"}`,
    );
  }
  print();

  const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `prefix-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  mkdirSync(join(jsonPath, ".."), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify({ machine: info, date: new Date().toISOString(), results }, null, 2)}\n`);
  writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${out.join("\n")}\n`);
  process.stderr.write(`raw results: ${jsonPath}\n`);
  if (!allMet) process.exitCode = 1;
}

await main();
