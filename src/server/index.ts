/**
 * `aeb/server`: the environment server's parts, for a trainer that embeds it or a script that
 * checks it (docs/server.md). The main entry has `buildServer`; this face adds the in-process
 * environment, the HTTP API's schemas and errors, the episode recorder and the reward-hacking suite.
 */
export { buildServer, assertServerBinding, MIN_BEARER_TOKEN_CHARS, type ServerOptions, type EnvironmentServer } from "./app.js";
export { Environment, type EnvironmentOptions, type StepOutcome } from "./environment.js";
export { EnvironmentError, type EnvironmentErrorCode, type ErrorBody } from "./environment-error.js";
export { EpisodeRecorder, type RecorderHealth } from "./episode-recorder.js";
export {
  ResetRequestSchema,
  ResetResponseSchema,
  StepRequestSchema,
  StepResponseSchema,
  PresetChoiceSchema,
  RewardModeSchema,
  type ResetRequest,
  type ResetResponse,
  type StepRequest,
  type StepResponse,
  type PresetChoice,
  type RewardMode,
} from "./api-schemas.js";
export {
  probeRewardHacking,
  REWARD_HACKING_ATTEMPTS,
  type RewardHackingAttempt,
  type HackProbe,
  type EnvironmentClient,
} from "./reward-hacking.js";
