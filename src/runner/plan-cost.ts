/**
 * What a run will cost before it spends anything (`aeb run --dry-run`): the dialogues of its plan,
 * and per model role the calls it will make and roughly how many tokens. The calls are counted and
 * the prompts measured by playing each scenario once per condition in memory, through the real
 * agents, simulated user and judges, with every model replaced by `modelFactory` (the CLI gives the
 * mock's reply policy): the prompts are exactly those the run would build, with canned answers in
 * place of the models' own. Nothing is sent and nothing is written.
 */
import type { ChatModel, ChatRequest } from "../llm/chat-model.js";
import type { ModelEndpointConfig } from "../llm/endpoint-config.js";
import { runEpisode } from "../episode/step.js";
import { getPreset } from "../core/preset.js";
import { loadReplyTokenizer } from "../metrics/reply-tokenizer.js";
import { judgeDialogue, type NamedJudges } from "./dialogue-judgements.js";
import { PluginFactory } from "./plugins.js";
import type { RunConfig } from "./run-config.js";
import { checkPlanSize, selectScenarios } from "./run-benchmark.js";
import { planRun } from "./run-plan.js";
import { defaultPackFor, loadPromptPack } from "../prompts/prompt-pack.js";
import type { Scenario } from "../scenarios/scenario-schema.js";

export interface RoleCost {
  role: string;
  model: string;
  /** Calls in the in-memory play, scaled to the plan's repeats. */
  calls: number;
  /** Calls if every dialogue ran to its turn limit. */
  maxCalls: number;
  /** Prompt tokens of those calls (estimated: see `tokenCount`). */
  promptTokens: number;
  /** Completion tokens of the canned answers: real models usually write more. */
  cannedCompletionTokens: number;
  /** The role's `maxTokens` times `maxCalls`, when the config caps its replies. */
  maxCompletionTokens: number | null;
}

export interface PlanCost {
  dialogues: number;
  conditions: number;
  scenarios: number;
  repeats: number;
  /** How tokens were counted: the run's tokenizer, or the rough rule. */
  tokenCount: string;
  roles: RoleCost[];
  /** Files the config names that a real run needs and that cannot be read now (the dry run counted the built-in prompt in their place). */
  missingFiles: MissingFile[];
}

/** A system prompt file a real run will need. */
export interface MissingFile {
  path: string;
  conditions: string[];
  reason: string;
}

/** Rough tokens of a text without a tokenizer: one per Han character, one per four other characters. */
export function roughTokens(text: string): number {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  return han + Math.ceil((text.length - han) / 4);
}

export async function estimatePlanCost(
  config: RunConfig,
  options: { modelFactory: (role: string, config: ModelEndpointConfig) => ChatModel },
): Promise<PlanCost> {
  const scenarios = selectScenarios(config);
  checkPlanSize(config, scenarios.length);
  const tokenizer = config.tokenizer === undefined ? undefined : loadReplyTokenizer(config.tokenizer.path);
  const count = (text: string) => (tokenizer === undefined ? roughTokens(text) : tokenizer.count(text));
  const measured = new Map<string, { model: string; config: ModelEndpointConfig; calls: number; prompt: number; completion: number }>();
  const missingFiles: MissingFile[] = [];
  const plugins = new PluginFactory({
    onUnreadableSystemPromptFile: (condition, path, reason) => {
      const known = missingFiles.find((file) => file.path === path);
      if (known !== undefined) known.conditions.push(condition);
      else missingFiles.push({ path, conditions: [condition], reason: reason.split("\n")[0]!.replace(/^.*cannot be read: /, "") });
    },
    modelFactory: (role, endpoint) => {
      const inner = options.modelFactory(role, endpoint);
      const entry = { model: endpoint.model, config: endpoint, calls: 0, prompt: 0, completion: 0 };
      measured.set(role, entry);
      return {
        id: inner.id,
        role: inner.role,
        usage: () => inner.usage(),
        async complete(request: ChatRequest) {
          const response = await inner.complete(request);
          entry.calls += 1;
          entry.prompt += request.messages.reduce((sum, message) => sum + count(message.content), 0);
          entry.completion += count(response.text) + count(response.reasoning ?? "");
          return response;
        },
      };
    },
  });
  const user = plugins.simulatedUser(config.simulator, scenarios);
  const agents = new Map(config.conditions.map((condition) => [condition.name, plugins.agent(condition.name, condition.agent)]));
  const judges: NamedJudges = { ecs: plugins.ecsJudges(config.judges), hid: plugins.hidJudges(config.judges) };

  // One repeat of the plan, played in memory; the other repeats cost the same.
  for (const task of planRun(config.conditions, scenarios, 1, config.seed)) {
    const record = await runEpisode({
      dialogueId: task.id,
      condition: task.condition.name,
      scenario: task.scenario,
      preset: task.preset,
      repeat: 0,
      seed: task.seed,
      agent: agents.get(task.condition.name)!,
      user,
    });
    await judgeDialogue(record, task.scenario, judges);
  }

  // Upper bounds: every dialogue to its turn limit.
  const turnsAtMost =
    scenarios.map((scenario) => getPreset(scenario.preset).maxTurns).reduce((sum, turns) => sum + turns, 0) * config.repeats;
  const appraisedAtMost =
    scenarios
      .map((scenario) => getPreset(scenario.preset))
      .reduce((sum, preset) => sum + preset.maxTurns - (preset.appraiseReplyAtLimit ? 0 : 1), 0) * config.repeats;
  const openings = scenarios.filter((scenario) => scenario.opening === undefined).length * config.repeats;
  const perCondition = config.conditions.length;
  const maxCallsOf = (role: string): number => {
    if (role.startsWith("agent:")) return turnsAtMost;
    if (role === "simulator")
      return perCondition * (appraisedAtMost * (config.simulator.kind === "llm" && config.simulator.fused ? 1 : 2) + openings);
    if (config.judges.hid.some((judge) => role === `judge:${judge.name}`)) return perCondition * scenarios.length * config.repeats;
    return perCondition * appraisedAtMost;
  };
  const roles = [...measured].map(([role, entry]): RoleCost => {
    const maxCalls = maxCallsOf(role);
    const maxTokens = maxTokensOf(config, role, scenarios) ?? entry.config.maxTokens;
    return {
      role,
      model: entry.model,
      calls: entry.calls * config.repeats,
      maxCalls,
      promptTokens: entry.prompt * config.repeats,
      cannedCompletionTokens: entry.completion * config.repeats,
      maxCompletionTokens: maxTokens === undefined ? null : maxTokens * maxCalls,
    };
  });
  return {
    dialogues: config.conditions.length * scenarios.length * config.repeats,
    conditions: config.conditions.length,
    scenarios: scenarios.length,
    repeats: config.repeats,
    tokenCount:
      tokenizer === undefined
        ? "a rough rule (one token per Han character, one per four other characters)"
        : `the run's tokenizer (${tokenizer.name})`,
    roles,
    missingFiles,
  };
}

/**
 * A role's reply cap set on its plug-in rather than its endpoint: the agent's or judge's own
 * maxTokens; for the LLM simulator its own, else its prompt packs' (the configured pack, or each
 * scenario's preset's), the largest when the scenarios use several and all of them set one.
 */
function maxTokensOf(config: RunConfig, role: string, scenarios: readonly Scenario[]): number | undefined {
  if (role.startsWith("agent:")) {
    const condition = config.conditions.find((candidate) => role === `agent:${candidate.name}`);
    return condition?.agent.kind === "llm" ? condition.agent.maxTokens : undefined;
  }
  if (role === "simulator") {
    if (config.simulator.kind !== "llm") return undefined;
    if (config.simulator.maxTokens !== undefined) return config.simulator.maxTokens;
    const configured = config.simulator.promptPack;
    const caps = [...new Set(scenarios.map((scenario) => configured ?? defaultPackFor(scenario.preset)))].map(
      (ref) => loadPromptPack(ref).manifest.sampling.maxTokens,
    );
    return caps.length > 0 && caps.every((cap) => cap !== undefined) ? Math.max(...(caps as number[])) : undefined;
  }
  const judge = config.judges.ecs.find((candidate) => role === `judge:${candidate.name}`);
  return judge?.kind === "llm" ? judge.maxTokens : undefined;
}
