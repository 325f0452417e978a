/**
 * AEB's public library API. Scripts import from here; anything not re-exported is internal.
 */
export * from "./core/errors.js";
export * from "./core/dialogue.js";
export * from "./core/judgement.js";
export * from "./core/emotion.js";
export * from "./core/preset.js";
export * from "./core/random.js";
export * from "./core/trajectory-type.js";
export * from "./lexicon/index.js";
export * from "./reward/index.js";
export * from "./scenarios/index.js";
export type { Agent, AgentInput, AgentReply } from "./agents/agent.js";
export { createReferenceAgent, AttunedAgent, REFERENCE_AGENT_IDS, type ReferenceAgentId } from "./agents/reference-agents.js";
export type { SimulatedUser, Appraisal, AppraisalInput, OpeningInput, ReplyInput, UserReply, UserMemory } from "./simulated-user/simulated-user.js";
export { OfflineSimulatedUser } from "./simulated-user/offline-user.js";
export { LlmSimulatedUser, type LlmUserOptions } from "./simulated-user/llm-user.js";
export { readTaggedSections, readChange, normaliseTargetCompletion } from "./simulated-user/tagged-output.js";
export { loadPromptPack, defaultPackFor, BUILTIN_PACKS, PLACEHOLDERS, PromptPackRefSchema, type PromptPack, type PromptPackRef, type PackManifest } from "./prompts/prompt-pack.js";
export { extractUpstreamPack, UPSTREAM_SOURCES, type UpstreamSource, type ExtractResult } from "./prompts/extract-upstream.js";
export * from "./episode/index.js";
export * from "./metrics/index.js";
export { parseRunConfig, loadRunConfig, RunConfigSchema, type RunConfig, type RunConfigInput } from "./runner/run-config.js";
export { runBenchmark, selectScenarios, MAX_PLANNED_DIALOGUES, type RunOptions, type RunResult, type RunEvents } from "./runner/run-benchmark.js";
export { judgeRun, type JudgeRunOptions, type JudgeRunResult } from "./runner/judge-run.js";
export * from "./record/index.js";
export { summariseRun, judgesOf, type SummaryOptions } from "./analysis/run-summary.js";
export * from "./analysis/summary-schema.js";
export { agreementReport, pairAgreement, outcomeOfEndReason, type AgreementDialogue, type AgreementOptions, type SimulatedUserResults } from "./analysis/agreement.js";
export * from "./analysis/agreement-schema.js";
export { classifyEcsJudges, HEURISTIC_ECS_JUDGES, type EcsJudgeKinds, type HeuristicEcsJudge } from "./analysis/ecs-judges.js";
export { parseJsonl } from "./core/jsonl.js";
export { parseProfileSource, loadProfileScenarios, profileToScenario, SageProfileSchema, PROFILE_SCHEMES, type ProfileSource, type ProfileScheme, type ProfileLoad, type SkippedProfileLine, type SageProfile } from "./scenarios/sage-profiles.js";
export * from "./interop/index.js";
export { buildServer, assertSafeBinding, isLoopbackHost, MIN_BEARER_TOKEN_CHARS, type ServerOptions, type EnvironmentServer } from "./server/app.js";
export { Environment, type EnvironmentOptions, type StepOutcome, type EpisodeFields } from "./server/environment.js";
export { EpisodeRecorder } from "./server/episode-recorder.js";
export { EnvironmentError, type EnvironmentErrorCode, type ErrorBody } from "./server/environment-error.js";
export { StateTokenCodec, hashHistory, type TokenPayload } from "./server/state-token.js";
export {
  ResetRequestSchema,
  ResetResponseSchema,
  StepRequestSchema,
  StepResponseSchema,
  PresetChoiceSchema,
  type ResetRequest,
  type ResetResponse,
  type StepRequest,
  type StepResponse,
  type PresetChoice,
} from "./server/api-schemas.js";
export { DelayedSimulatedUser, SimulatedModelError } from "./server/delayed-user.js";
export { REWARD_HACKING_ATTEMPTS, probeRewardHacking, type RewardHackingAttempt, type HackProbe } from "./server/reward-hacking.js";
export { renderHtmlReport } from "./report/html-report.js";
export { renderMarkdownReport } from "./report/markdown-report.js";
export { writeReportFiles } from "./report/write-reports.js";
export { writeRunOutputs, type RunOutputOptions } from "./runner/run-outputs.js";
export { reportInputOfRecords, type ReportInput } from "./report/report-model.js";
export { loadRunForReport, reportInputOf, type LoadedReport } from "./report/load-run.js";
export { chartDefinitions, renderCharts, type ChartDefinition, type RenderedChart } from "./report/charts/index.js";
export { compareRuns, renderComparisonText, renderComparisonMarkdown, type RunComparison, type ConditionComparison } from "./report/compare-runs.js";
export { runProbe, CHECKPOINT_FILE, type ProbeOptions, type ProbeOutcome, type ProbeEvents } from "./probe/run-probe.js";
export { ProbeResultSchema, ProbeDefinitionSchema, CheckpointSchema, type ProbeResult, type ProbeDefinition } from "./probe/probe-schema.js";
export { PoolFileSchema, POOL_TAGS, type PoolTag, type PoolFile } from "./probe/pool-schema.js";
export { loadPools, loadPoolFile, BUILTIN_POOL_DIR, type FragmentPool } from "./probe/pools.js";
export { parseTagList, type ProbeConstraints } from "./probe/constraints.js";
export { TARGET_GAP } from "./probe/probe-report.js";
