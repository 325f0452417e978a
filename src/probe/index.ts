/**
 * `aeb/probe`: the reward probe (`aeb probe`, docs/probe.md), which searches for replies that earn
 * reward without attunement, for a script that runs it or reads its result.
 */
export { runProbe, CHECKPOINT_FILE, type ProbeOptions, type ProbeOutcome, type ProbeEvents } from "./run-probe.js";
export { ProbeResultSchema, ProbeDefinitionSchema, type ProbeResult, type ProbeDefinition } from "./probe-schema.js";
export { loadPools, loadPoolFile, BUILTIN_POOL_DIR, type FragmentPool } from "./pools.js";
export { PoolFileSchema, POOL_TAGS, type PoolTag, type PoolFile } from "./pool-schema.js";
export { parseTagList, type ProbeConstraints } from "./constraints.js";
export { TARGET_GAP } from "./probe-report.js";
