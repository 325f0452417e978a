import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AttunedAgent } from "../agents/reference-agents.js";
import { packageRoot } from "../core/data-files.js";
import { ConfigError, RunStoppedError } from "../core/errors.js";
import { getPreset } from "../core/preset.js";
import { deriveSeed } from "../core/random.js";
import { stableHash } from "../core/stable-json.js";
import { ADVERSARIAL_TYPES, type AdversarialType } from "../core/trajectory-type.js";
import type { Language } from "../lexicon/lexicon.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import { usablePools, type ProbeConstraints } from "./constraints.js";
import { meanFs, playEpisodes, type PlayedEpisode, type ProbeEpisode } from "./play-episode.js";
import type { PolicySpace } from "./policy.js";
import type { FragmentPool } from "./pools.js";
import { CheckpointSchema, type Checkpoint, type ProbeDefinition, type ProbeResult, type TypeSearch } from "./probe-schema.js";
import { buildProbeResult, writeProbeReports } from "./probe-report.js";
import { evaluateNext, type SearchContext } from "./search.js";

export const CHECKPOINT_FILE = "checkpoint.json";
export const PROBE_FILES = [CHECKPOINT_FILE, "probe.json", "probe.md", "learning-curve.svg"] as const;

export interface ProbeOptions {
  /** The selected scenarios; the cooperative ones are left out (the probe searches the adversarial types). */
  scenarios: readonly Scenario[];
  user: SimulatedUser;
  /** What else decides the user's answers, for the checkpoint's guard: its config, the AEB version, the package's data files. */
  userDefinition: { simulator: unknown; aebVersion: string; dataFiles: string };
  pools: readonly FragmentPool[];
  constraints: ProbeConstraints;
  seed: number;
  budget: number;
  patience: number;
  maxFragments: number;
  trainSeeds: number;
  heldoutSeeds: number;
  concurrency: number;
  outDir: string;
  /** Discard a checkpoint of another definition (or any checkpoint) and start again. */
  force?: boolean;
  /** Stop after this many evaluations in this invocation, as a kill would (tests; the checkpoint is kept). */
  stopAfter?: number;
  signal?: AbortSignal;
  /** Least time between two checkpoint writes during a search (a type's end and a stop always write). */
  checkpointIntervalMs?: number;
  events?: ProbeEvents;
}

export interface ProbeEvents {
  /** Before the first dialogue: how many dialogues this invocation will play, and whether it resumes. */
  onPlan?(plan: { dialogues: number; resumedTypes: number; resumedEvaluations: number }): void;
  onEpisode?(): void;
  onTypeDone?(search: TypeSearch): void;
}

export interface ProbeOutcome {
  result: ProbeResult;
  /** True when the probe stopped before the end (its checkpoint and partial reports are written). */
  stopped: boolean;
}

interface TypePlan {
  type: AdversarialType;
  scenarios: Scenario[];
  languages: Language[];
  space: PolicySpace;
  training: ProbeEpisode[];
  heldOut: ProbeEpisode[];
}

function episodesOf(scenarios: readonly Scenario[], seed: number, split: "train" | "heldout", count: number): ProbeEpisode[] {
  return scenarios.flatMap((scenario) =>
    Array.from({ length: count }, (_, k) => ({ scenario, seed: deriveSeed(seed, split, scenario.id, k) })),
  );
}

/** Per adversarial type with scenarios: its pools (checked against the constraints), its dialogues. */
function planTypes(options: ProbeOptions): TypePlan[] {
  const plans: TypePlan[] = [];
  for (const type of ADVERSARIAL_TYPES) {
    const scenarios = options.scenarios
      .filter((scenario) => scenario.type === type)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (scenarios.length === 0) continue;
    const languages = [...new Set(scenarios.map((scenario) => scenario.language))].sort();
    const pools = usablePools(options.pools, options.constraints, type, languages, options.maxFragments);
    const turns = Math.max(...scenarios.map((scenario) => getPreset(scenario.preset).maxTurns));
    plans.push({
      type,
      scenarios,
      languages,
      space: { pools, constraints: options.constraints, maxFragments: options.maxFragments, turns },
      training: episodesOf(scenarios, options.seed, "train", options.trainSeeds),
      heldOut: episodesOf(scenarios, options.seed, "heldout", options.heldoutSeeds),
    });
  }
  if (plans.length === 0)
    throw new ConfigError(
      "no scenario of an adversarial type is selected: the probe searches the six adversarial types (check --suite, --types, --scenario)",
    );
  return plans;
}

function poolFileName(file: string): string {
  const path = relative(packageRoot, file);
  return path.startsWith("..") ? file : path;
}

function definitionOf(options: ProbeOptions, plans: readonly TypePlan[]): ProbeDefinition {
  return {
    seed: options.seed,
    budget: options.budget,
    patience: options.patience,
    maxFragments: options.maxFragments,
    trainSeeds: options.trainSeeds,
    heldoutSeeds: options.heldoutSeeds,
    constraints: { require: [...options.constraints.require], exclude: [...options.constraints.exclude] },
    user: options.user.id,
    simulator: options.userDefinition.simulator,
    aebVersion: options.userDefinition.aebVersion,
    dataFiles: options.userDefinition.dataFiles,
    pools: options.pools.map((pool) => ({
      name: pool.name,
      file: poolFileName(pool.file),
      source: pool.source,
      tags: [...pool.tags],
      sha256: pool.sha256,
    })),
    scenarios: plans.flatMap((plan) =>
      plan.scenarios.map((scenario) => ({ id: scenario.id, type: plan.type, preset: scenario.preset, sha256: stableHash(scenario) })),
    ),
  };
}

function freshSearch(plan: TypePlan): TypeSearch {
  return {
    type: plan.type,
    scenarios: plan.scenarios.map((scenario) => scenario.id),
    languages: plan.languages,
    evaluations: 0,
    climbs: 0,
    current: null,
    best: null,
    curve: [],
    attunedTrain: null,
    heldOut: null,
  };
}

/** The definition as the checkpoint's guard compares it: a pool by its content, not by the path it was given as. */
function guardedDefinition(definition: ProbeDefinition): Record<string, unknown> {
  return { ...definition, pools: definition.pools.map(({ file: _file, ...pool }) => pool) };
}

/** The fields of two definitions that differ, by name. */
function changedFields(before: ProbeDefinition, after: ProbeDefinition): string[] {
  const [old, now] = [guardedDefinition(before), guardedDefinition(after)];
  return Object.keys(now).filter((key) => stableHash(old[key]) !== stableHash(now[key]));
}

function readCheckpoint(outDir: string): Checkpoint | undefined {
  const path = join(outDir, CHECKPOINT_FILE);
  if (!existsSync(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`${path} is not a readable probe checkpoint (${(error as Error).message}); rerun with --force to start again`);
  }
  const parsed = CheckpointSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${path} is not a probe checkpoint of this AEB version; rerun with --force to start again`);
  return parsed.data;
}

/** Writes through a temporary file and a rename, so a kill mid-write leaves the previous checkpoint whole. */
function writeCheckpoint(outDir: string, checkpoint: Checkpoint): void {
  const path = join(outDir, CHECKPOINT_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(checkpoint)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The best policy on the held-out dialogues beside the attuned reference agent on the same dialogues. */
async function heldOutCheck(plan: TypePlan, search: TypeSearch, context: SearchContext): Promise<NonNullable<TypeSearch["heldOut"]>> {
  if (search.best === null) throw new Error(`type ${plan.type}: no policy was evaluated`);
  const options = { concurrency: context.concurrency, signal: context.signal, onEpisode: context.onEpisode };
  const best = await playEpisodes(plan.heldOut, { policy: search.best.policy, space: plan.space }, context.user, options);
  const attuned = await playEpisodes(plan.heldOut, { agent: new AttunedAgent() }, context.user, options);
  const bestDialogue = best.reduce((top: PlayedEpisode, episode) => (episode.fs > top.fs ? episode : top), best[0] as PlayedEpisode);
  return {
    best: meanFs(best),
    attuned: meanFs(attuned),
    gap: meanFs(attuned) - meanFs(best),
    dialogues: best.map((episode, index) => ({
      scenarioId: episode.scenarioId,
      seed: episode.seed,
      best: episode.fs,
      attuned: (attuned[index] as PlayedEpisode).fs,
    })),
    bestDialogue,
  };
}

/**
 * The reward-optimum probe (docs/probe.md): per adversarial type, hill climbing with restarts over
 * reply policies composed of pool fragments, scored by the simulated user through the
 * environment's own `step` on training seeds; then the best policy and the attuned reference agent
 * on held-out seeds. The search's state is checkpointed in the output directory, so a probe
 * stopped or killed keeps its best-so-far and a rerun with the same directory and definition
 * resumes it.
 */
export async function runProbe(options: ProbeOptions): Promise<ProbeOutcome> {
  const plans = planTypes(options);
  const definition = definitionOf(options, plans);
  const definitionHash = stableHash(guardedDefinition(definition));
  mkdirSync(options.outDir, { recursive: true });
  let saved = readCheckpoint(options.outDir);
  if (saved !== undefined && saved.definitionHash !== definitionHash && options.force !== true) {
    throw new ConfigError(
      `${options.outDir} holds a probe with another definition (changed: ${changedFields(saved.definition, definition).join(", ")}); rerun with --force to discard it and start again, or choose another --out`,
    );
  }
  if (options.force === true) {
    for (const file of PROBE_FILES) rmSync(join(options.outDir, file), { force: true });
    saved = undefined;
  }
  const searches = plans.map((plan) => saved?.types.find((search) => search.type === plan.type) ?? freshSearch(plan));
  const checkpoint = (): Checkpoint => ({ format: "aeb-probe-checkpoint/1", definitionHash, definition, types: searches });

  const pending = plans
    .map((plan, index) => ({ plan, search: searches[index] as TypeSearch }))
    .filter(({ search }) => search.heldOut === null);
  options.events?.onPlan?.({
    dialogues: pending.reduce(
      (sum, { plan, search }) =>
        sum +
        (options.budget - search.evaluations) * plan.training.length +
        (search.attunedTrain === null ? plan.training.length : 0) +
        2 * plan.heldOut.length,
      0,
    ),
    resumedTypes: searches.filter((search) => search.evaluations > 0).length,
    resumedEvaluations: searches.reduce((sum, search) => sum + search.evaluations, 0),
  });

  let evaluationsNow = 0;
  let lastWrite = Date.now();
  const interval = options.checkpointIntervalMs ?? 1000;
  let stopped = false;
  try {
    for (const { plan } of pending) {
      const position = plans.indexOf(plan);
      const context: SearchContext = {
        seed: options.seed,
        space: plan.space,
        patience: options.patience,
        training: plan.training,
        user: options.user,
        concurrency: options.concurrency,
        signal: options.signal,
        onEpisode: options.events?.onEpisode,
      };
      let search = searches[position] as TypeSearch;
      if (search.attunedTrain === null) {
        search = {
          ...search,
          attunedTrain: meanFs(await playEpisodes(plan.training, { agent: new AttunedAgent() }, options.user, context)),
        };
        searches[position] = search;
      }
      while (search.evaluations < options.budget) {
        if (options.stopAfter !== undefined && evaluationsNow >= options.stopAfter)
          throw new RunStoppedError(`stopped after ${evaluationsNow} evaluation(s) (--stop-after)`);
        search = await evaluateNext(search, context);
        searches[position] = search;
        evaluationsNow += 1;
        if (Date.now() - lastWrite >= interval) {
          writeCheckpoint(options.outDir, checkpoint());
          lastWrite = Date.now();
        }
      }
      search = { ...search, heldOut: await heldOutCheck(plan, search, context) };
      searches[position] = search;
      writeCheckpoint(options.outDir, checkpoint());
      lastWrite = Date.now();
      options.events?.onTypeDone?.(search);
    }
  } catch (error) {
    // The evaluation that failed was never applied: the state is whole, and a rerun resumes from it.
    writeCheckpoint(options.outDir, checkpoint());
    const aborted = options.signal?.aborted === true;
    if (!aborted && !(error instanceof RunStoppedError)) throw error;
    stopped = true;
  }
  writeCheckpoint(options.outDir, checkpoint());
  const result = buildProbeResult(
    definition,
    plans.map((plan) => plan.space),
    searches,
    stopped ? "partial" : "complete",
  );
  await writeProbeReports(options.outDir, result);
  return { result, stopped };
}
