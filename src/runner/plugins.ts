import { readFileSync } from "node:fs";
import type { Agent } from "../agents/agent.js";
import { LlmAgent } from "../agents/llm-agent.js";
import { libraryAgent, type AgentFunction } from "../agents/library-agent.js";
import { createReferenceAgent } from "../agents/reference-agents.js";
import { AebError, ConfigError, RunStoppedError } from "../core/errors.js";
import type { EcsJudge, HidJudge } from "../judges/judge.js";
import { LlmEcsJudge, LlmHidJudge } from "../judges/llm-judges.js";
import { OfflineEcsJudge } from "../judges/offline-ecs-judge.js";
import type { ChatModel, ModelCallEvent, UsageSink, UsageTotals } from "../llm/chat-model.js";
import type { ModelEndpointConfig } from "../llm/endpoint-config.js";
import { probe } from "../llm/endpoint-probe.js";
import { ModelCallError } from "../llm/errors.js";
import { displayEndpoint } from "../llm/redaction.js";
import { createOpenAIChatModel } from "../llm/openai-chat-model.js";
import { createResponseCache, type ResponseCache } from "../llm/response-cache.js";
import { LlmSimulatedUser } from "../simulated-user/llm-user.js";
import { OfflineSimulatedUser } from "../simulated-user/offline-user.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import type { AgentConfig, JudgesConfig, RunConfig, SimulatorConfig } from "./run-config.js";

/**
 * Builds the plug-ins a config names, and keeps the model clients it made so that the runner can
 * probe them before a run and report their token usage. A new kind of agent, user or judge adds a
 * schema member in run-config.ts and a branch here (see docs/architecture.md, "How to add one").
 */
export class PluginFactory {
  readonly models: Array<{ role: string; config: ModelEndpointConfig; client: ChatModel }> = [];
  /** Aborted when a preflight fails: the run stops instead of erroring every dialogue. */
  readonly abort = new AbortController();
  /** The preflight failure that stopped the run, if any. */
  fatal: AebError | undefined;
  private readonly cache: ResponseCache | undefined;
  private readonly probes = new Map<string, Promise<void>>();

  constructor(
    options: {
      cacheDir?: string;
      env?: Readonly<Record<string, string | undefined>>;
      warn?: (message: string) => void;
      /** Instrumentation: told of every finished model call (see ModelCallEvent). */
      onModelCall?: (event: ModelCallEvent) => void;
      /** Where every model request and call is recorded as it happens (the run directory's usage log). */
      usage?: UsageSink;
      /**
       * Told each time a model call has to wait for a free slot under its endpoint's
       * `maxConcurrencyPerEndpoint` (the server warns and counts it: steps queue on the cap).
       */
      onModelQueued?: (role: string, config: ModelEndpointConfig, queued: number) => void;
      /** Called after each successful model call (answered or cached): the run claims its directory on the first. */
      onModelSuccess?: () => void;
      /**
       * Makes the model client of a role instead of the OpenAI-compatible one (an in-memory model for
       * `aeb run --dry-run`, a scripted one in tests): no preflight, cache or breaker then.
       */
      modelFactory?: (role: string, config: ModelEndpointConfig) => ChatModel;
      /** Agents given in code, by condition name, for conditions of kind `library`. */
      libraryAgents?: Readonly<Record<string, Agent | AgentFunction>>;
      /**
       * A condition's systemPromptFile cannot be read: told here, and the agent gets the built-in
       * prompt, instead of the error a real run stops with (the dry run lists what a run will need).
       */
      onUnreadableSystemPromptFile?: (condition: string, path: string, reason: string) => void;
    } = {},
    private readonly env = options.env,
  ) {
    this.warn = options.warn;
    this.cache =
      options.cacheDir === undefined
        ? undefined
        : createResponseCache({ dir: options.cacheDir, ...(options.warn ? { warn: options.warn } : {}) });
    this.usageSink = options.usage;
    this.libraryAgents = options.libraryAgents ?? {};
    this.modelFactory = options.modelFactory;
    this.onModelQueued = options.onModelQueued;
    this.onUnreadableSystemPromptFile = options.onUnreadableSystemPromptFile;
    const { onModelCall, onModelSuccess } = options;
    this.onModelCall =
      onModelSuccess === undefined
        ? onModelCall
        : (event) => {
            if (event.ok) onModelSuccess();
            onModelCall?.(event);
          };
  }

  private readonly usageSink: UsageSink | undefined;
  private readonly libraryAgents: Readonly<Record<string, Agent | AgentFunction>>;
  private readonly modelFactory: ((role: string, config: ModelEndpointConfig) => ChatModel) | undefined;
  private readonly warn: ((message: string) => void) | undefined;
  private readonly onUnreadableSystemPromptFile: ((condition: string, path: string, reason: string) => void) | undefined;
  private readonly onModelCall: ((event: ModelCallEvent) => void) | undefined;
  private readonly onModelQueued: ((role: string, config: ModelEndpointConfig, queued: number) => void) | undefined;

  private model(role: string, config: ModelEndpointConfig): ChatModel {
    if (this.modelFactory !== undefined) {
      const client = this.modelFactory(role, config);
      this.models.push({ role, config, client });
      return client;
    }
    const endpoint = config.baseUrls.map(displayEndpoint).join(", ");
    const client = createOpenAIChatModel(config, {
      role,
      cache: this.cache,
      env: this.env,
      beforeFirstRequest: () => this.probeOnce(role, config),
      onCall: this.onModelCall,
      ...(this.onModelQueued !== undefined ? { onQueued: (queued: number) => this.onModelQueued?.(role, config, queued) } : {}),
      usage: this.usageSink,
      breaker: {
        onOpen: ({ reason, maxWaitMs }) =>
          this.warn?.(
            `${role}: ${endpoint} keeps failing (${reason}); dialogues wait for it, checking every ${config.circuitBreaker.probeIntervalMs / 1000} s, for up to ${Math.round(maxWaitMs / 1000)} s before the run stops`,
          ),
        onClose: ({ downMs }) => this.warn?.(`${role}: ${endpoint} answers again after ${(downMs / 1000).toFixed(1)} s; dialogues go on`),
        onGiveUp: (error) => {
          const failure = new RunStoppedError(`${role}: ${error.message}; the run stopped, and the dialogues that finished are kept`);
          this.fatal ??= failure;
          this.abort.abort(failure);
        },
      },
    });
    this.models.push({ role, config, client });
    return client;
  }

  agent(condition: string, config: AgentConfig): Agent {
    switch (config.kind) {
      case "reference":
        return createReferenceAgent(config.id);
      case "library": {
        const given = this.libraryAgents[condition];
        if (given === undefined)
          throw new ConfigError(
            `condition "${condition}" is a library agent: pass it in code, runBenchmark({ config, agents: { "${condition}": agent } })`,
          );
        return libraryAgent(config.id, given);
      }
      case "llm": {
        const systemPrompt =
          config.systemPromptFile === undefined ? config.systemPrompt : this.systemPromptFile(condition, config.systemPromptFile);
        return new LlmAgent(this.model(`agent:${condition}`, config.endpoint), {
          think: config.think,
          ...(systemPrompt !== undefined ? { systemPrompt } : {}),
          ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
          ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
        });
      }
    }
  }

  /**
   * The simulated user. Given the run's scenarios, an LLM user checks its prompt pack can play each
   * of them (language, trait text, fused template) before any model is called.
   */
  simulatedUser(config: SimulatorConfig, scenarios?: readonly Scenario[]): SimulatedUser {
    switch (config.kind) {
      case "offline":
        return new OfflineSimulatedUser();
      case "llm": {
        const user = new LlmSimulatedUser(this.model("simulator", config.endpoint), {
          fused: config.fused,
          maxOutputRetries: config.maxOutputRetries,
          ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
          ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
          ...(config.promptPack !== undefined ? { promptPack: config.promptPack } : {}),
        });
        if (scenarios !== undefined) user.checkScenarios(scenarios);
        return user;
      }
    }
  }

  ecsJudges(config: JudgesConfig): Array<{ name: string; judge: EcsJudge }> {
    return config.ecs.map((judge) => ({
      name: judge.name,
      judge:
        judge.kind === "offline"
          ? new OfflineEcsJudge()
          : new LlmEcsJudge(this.model(`judge:${judge.name}`, judge.endpoint), judge.maxOutputRetries, {
              prompt: judge.prompt ?? "aeb",
              unreadableTurn: judge.unreadableTurn ?? "exclude",
              ...(judge.temperature !== undefined ? { temperature: judge.temperature } : {}),
              ...(judge.maxTokens !== undefined ? { maxTokens: judge.maxTokens } : {}),
            }),
    }));
  }

  hidJudges(config: JudgesConfig): Array<{ name: string; judge: HidJudge }> {
    return config.hid.map((judge) => ({
      name: judge.name,
      judge: new LlmHidJudge(this.model(`judge:${judge.name}`, judge.endpoint), judge.maxOutputRetries),
    }));
  }

  /**
   * The preflight: checks an endpoint serves its model before its first real request (calls
   * answered from the cache need no server), so a typo in a URL or a model name stops the run in
   * seconds with the endpoint named, not after every dialogue has failed.
   */
  probeOnce(role: string, config: ModelEndpointConfig): Promise<void> {
    const key = `${config.model}@${config.baseUrls.join(",")}`;
    let pending = this.probes.get(key);
    if (pending === undefined) {
      pending = probe(config, { env: this.env }).then(
        () => undefined,
        (error: unknown) => {
          const failure = new AebError(
            `${role}: ${ModelCallError.isInstance(error) || error instanceof Error ? error.message : String(error)}`,
          );
          this.fatal ??= failure;
          this.abort.abort(failure);
          throw failure;
        },
      );
      this.probes.set(key, pending);
    }
    return pending;
  }

  private systemPromptFile(condition: string, path: string): string | undefined {
    if (this.onUnreadableSystemPromptFile === undefined) return readSystemPromptFile(condition, path);
    try {
      return readSystemPromptFile(condition, path);
    } catch (error) {
      this.onUnreadableSystemPromptFile(condition, path, (error as Error).message);
      return undefined;
    }
  }

  usage(): UsageTotals[] {
    return this.models.map(({ client }) => client.usage());
  }
}

/** Where a policy's system prompt file usually comes from: RLVER's training prompt, extracted from a checkout of its code. */
export const SYSTEM_PROMPT_FILE_HINT = [
  "If it is the prompt RLVER's checkpoints were trained with (examples/paper-eight-conditions.yaml): RLVER defines it as",
  "system_prompt_trained in verl/workers/rollout/vllm_rollout/system_prompt.py of its code; extract it with",
  "  git clone https://github.com/zzjweb/digitalhuman ~/src/rlver",
  "  aeb prompts extract --from rlver ~/src/rlver --out rlver",
  "which writes rlver/agent-system-think.txt and rlver/agent-system-direct.txt (docs/reproduce-paper.md). Or write your own prompt into the file.",
].join("\n");

/** A condition's system prompt file, read once when the agent is built; a file that cannot be read stops the run before any model call. */
function readSystemPromptFile(condition: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `condition "${condition}": agent.systemPromptFile ${path} cannot be read: ${(error as Error).message}\n${SYSTEM_PROMPT_FILE_HINT}`,
    );
  }
  if (text.trim() === "")
    throw new ConfigError(`condition "${condition}": agent.systemPromptFile ${path} is empty\n${SYSTEM_PROMPT_FILE_HINT}`);
  // Sent exactly as the file holds it: RLVER's training prompt begins and ends with a newline.
  return text;
}

/** Warnings about a config that runs but may mislead (e.g. the ECS judge is the simulator's model). */
export function configWarnings(config: RunConfig): string[] {
  const warnings: string[] = [];
  if (config.simulator.kind === "llm") {
    for (const judge of config.judges.ecs) {
      if (judge.kind === "llm" && judge.endpoint.model === config.simulator.endpoint.model) {
        warnings.push(
          `ECS judge "${judge.name}" is the simulator's model (${judge.endpoint.model}): it predicts emotions its own model reported, as the AEB paper's ECS judge did (docs/fidelity.md); add a judge of another family beside it (as examples/paper-eight-conditions.yaml does) for an independent ECS`,
        );
      }
    }
  }
  return warnings;
}
