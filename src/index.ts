/**
 * AEB's public library API, the package's main entry (`import { runBenchmark } from "aeb"`): run a
 * benchmark, judge a run, report on it, serve the environment. It is a curated list, as
 * inspect_ai's and the AI SDK's top levels are: what a script needs for those four jobs, and no
 * more. Narrower jobs have their own entries (package.json `exports`, docs/architecture.md):
 * `aeb/record` (a run directory's files), `aeb/llm` (model clients), `aeb/stats` (the tests and
 * intervals), `aeb/server` (the environment server's parts), `aeb/probe` (the reward probe) and
 * `aeb/testing` (mock model server and test doubles). Anything not exported by an entry is internal.
 */

// Running: a config, agents and simulated users, the scenarios they play.
export { runBenchmark, type RunOptions, type RunResult, type RunEvents } from "./runner/run-benchmark.js";
export { parseRunConfig, loadRunConfig, type RunConfig, type RunConfigInput } from "./runner/run-config.js";
export type { Agent, AgentInput, AgentReply } from "./agents/agent.js";
export { createReferenceAgent, REFERENCE_AGENT_IDS, type ReferenceAgentId } from "./agents/reference-agents.js";
export type { SimulatedUser } from "./simulated-user/simulated-user.js";
export { OfflineSimulatedUser } from "./simulated-user/offline-user.js";
export { LlmSimulatedUser, type LlmUserOptions } from "./simulated-user/llm-user.js";
export type { Scenario } from "./scenarios/scenario-schema.js";
export { BUILTIN_SCENARIO_DIR, loadScenarioDirectory, filterScenarios } from "./scenarios/load-scenarios.js";
export { getPreset, PresetName, type Preset } from "./core/preset.js";
export type { TrajectoryType } from "./core/trajectory-type.js";

// One episode in process, turn by turn (what the server serves over HTTP).
export { startEpisode, step, EpisodeError, type StepContext } from "./episode/step.js";
export { StepError, type StepStage } from "./episode/dialogue-error.js";
export type { EpisodeState } from "./episode/episode-state.js";
export type { DialogueRecord, TurnRecord } from "./core/dialogue.js";

// Judging a finished run.
export { judgeRun, type JudgeRunOptions, type JudgeRunResult } from "./runner/judge-run.js";

// Reporting: a run's summary and reports, and two runs compared.
export type { RunSummary } from "./analysis/summary-schema.js";
export { loadRunForReport, reportInputOf } from "./report/report-input.js";
export type { ReportInput } from "./report/report-model.js";
export { renderMarkdownReport } from "./report/markdown-report.js";
export { renderHtmlReport } from "./report/html-report.js";
export { writeReportFiles } from "./report/write-reports.js";
export { compareRuns, renderComparisonMarkdown, type RunComparison } from "./report/compare-runs.js";

// Serving the environment to a trainer.
export { buildServer, type ServerOptions, type EnvironmentServer } from "./server/app.js";

// Errors a caller can tell apart (`AebError.isInstance(error)` and `error.name`).
export { AebError, ConfigError, ScenarioError, RunDirectoryError, RunStoppedError } from "./core/errors.js";
