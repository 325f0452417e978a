import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { InvalidArgumentError, Option, type Command } from "commander";
import type { z } from "zod";
import { ConfigError } from "../../core/errors.js";
import { PluginFactory } from "../../runner/plugins.js";
import { selectScenarios } from "../../runner/run-benchmark.js";
import { PresetChoiceSchema, RewardModeSchema, type PresetChoice, type RewardMode } from "../../server/api-schemas.js";
import { assertServerBinding, buildServer, type EnvironmentServer } from "../../server/app.js";
import {
  announceListening,
  isClusterWorker,
  leaveCluster,
  listenToPrimary,
  primaryRecorderHealthNow,
  runClusterPrimary,
  sendEpisodeToPrimary,
} from "../../server/cluster.js";
import { DelayedSimulatedUser } from "../../testing/delayed-user.js";
import { EpisodeRecorder, type RecorderHealth } from "../../server/episode-recorder.js";
import { flagDefault, flagMeta, LogLevelSchema, settingFromFlag, type ServeSettings } from "../../server/server-options.js";
import { simulatorCapacity } from "../../server/simulator-capacity.js";
import { MIN_SECRET_BYTES, randomSecret } from "../../server/state-token.js";
import { nonNegativeInteger, positiveInteger } from "../options.js";
import { configFromFlags } from "../run-config-flags.js";
import { listenFailure } from "../ports.js";

interface ServeFlags {
  config?: string;
  scenarios?: string;
  suite?: string;
  types?: string;
  host: string;
  port: number;
  preset: PresetChoice;
  rewardMode: RewardMode;
  secretFile?: string;
  authTokenFile?: string;
  bodyLimit: number;
  batchBodyLimit: number;
  maxBatch: number;
  stepsInFlight?: number;
  rateLimit: number;
  rateWindow: number;
  authFailureLimit: number;
  stepTimeout: number;
  requestTimeout: number;
  maxConnections: number;
  allowHost?: string[];
  sessionTtl: number;
  maxSessions: number;
  sessionMemory: number;
  shutdownTimeout: number;
  trustProxy?: boolean;
  logLevel: z.infer<typeof LogLevelSchema>;
  logRequests?: boolean;
  mockUserLatency?: number;
  workers: number;
  stepThreads?: number;
  record?: string;
  recordCondition: string;
}

function readSecretFile(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new ConfigError(`cannot read the ${what} file ${path}: ${(error as Error).message}`);
  }
}

const port = (value: string): number => {
  const parsed = nonNegativeInteger(value);
  if (parsed > 65_535) throw new InvalidArgumentError(`expected a port (0-65535), got "${value}"`);
  return parsed;
};

const conditionName = (value: string): string => {
  if (!/^[\w.-]{1,100}$/.test(value)) throw new InvalidArgumentError(`expected a condition name (letters, digits, _ . -), got "${value}"`);
  return value;
};

const hostList = (value: string): string[] => {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const bad = names.find((name) => !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(name));
  if (names.length === 0 || bad !== undefined)
    throw new InvalidArgumentError(`expected host names without ports (e.g. aeb.internal,proxy.local), got "${bad ?? value}"`);
  return names;
};

function choice<T extends string>(schema: { options: readonly T[] }) {
  return (value: string): T => {
    if (!(schema.options as readonly string[]).includes(value))
      throw new InvalidArgumentError(`expected one of ${schema.options.join(", ")}, got "${value}"`);
    return value as T;
  };
}

/**
 * The flag of a server setting, written once in src/server/server-options.ts: its name, its help
 * (the setting's description, and `aeb serve`'s own default where that differs from the library's)
 * and its default in the flag's unit, which commander shows as "(default: N)". Booleans, lists and
 * settings without a default (or with a computed serve default) get no commander default.
 * `value` names the flag's argument (`<n>`); a switch has none.
 */
function settingOption(key: keyof ServeSettings, value?: string, parse?: (text: string) => unknown): Option {
  const meta = flagMeta(key);
  const help = meta.serveDefault === undefined ? meta.description : `${meta.description} (default: ${meta.serveDefault})`;
  const option = new Option(value === undefined ? meta.flag : `${meta.flag} ${value}`, help);
  if (parse !== undefined) option.argParser(parse);
  const fallback = flagDefault(key);
  if (meta.serveDefault === undefined && (typeof fallback === "number" || typeof fallback === "string")) option.default(fallback);
  return option;
}

/** Threads per server process for batches: the cores left to each process, at least one. */
export function defaultStepThreads(workers: number, cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / workers));
}

/**
 * SIGTERM/SIGINT: drain (see EnvironmentServer.shutdown) and resolve with the exit code, 1 when the
 * timeout cut requests. A second signal to a single server exits at once; a worker ignores repeats
 * (Ctrl-C reaches it and the primary forwards SIGTERM).
 */
function untilShutdown(server: EnvironmentServer, timeoutSeconds: number, beforeExit: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: NodeJS.Signals) => {
      if (stopping) {
        if (!isClusterWorker()) process.exit(130);
        return;
      }
      stopping = true;
      if (!isClusterWorker())
        console.error(`aeb serve: ${signal}: finishing in-flight requests (at most ${timeoutSeconds} s), then exiting`);
      server
        .shutdown(timeoutSeconds * 1000)
        .then(
          ({ cutRequests }) => {
            if (cutRequests === 0) return 0;
            console.error(`aeb serve: shutdown timeout: ${cutRequests} request(s) still in flight after ${timeoutSeconds} s were cut`);
            return 1;
          },
          (error: unknown) => {
            console.error(`aeb serve: error while closing: ${(error as Error).message}`);
            return 1;
          },
        )
        .then(async (code) => {
          await beforeExit();
          resolve(code);
        });
    };
    process.on("SIGINT", shutdown);
    process.on("SIGTERM", shutdown);
  });
}

/** The recorder's changes of health, for the operator. */
function logRecorderHealth(dir: string, health: RecorderHealth): void {
  if (health.state === "failing")
    console.error(
      `aeb serve: cannot record finished episodes in ${dir} (${health.error}); their last steps are answered 503 recording_failed (clients retry), /healthz answers 503`,
    );
  else console.error("aeb serve: recording works again");
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "Serve the RL environment over HTTP: reset/step with signed state tokens (any replica can serve any step), sessions, batched steps, OpenAPI docs at /docs, Prometheus /metrics.",
    )
    .option("-c, --config <file>", "YAML run config: its simulator and scenario selection are used (as `aeb run`)")
    .option("--scenarios <path>", "scenario directory or file (default: the built-in suites)")
    .option("--suite <name>", "built-in suite: full, starter or classic")
    .option("--types <list>", "comma-separated trajectory types to serve")
    .addOption(settingOption("host", "<host>"))
    .addOption(settingOption("port", "<n>", port))
    .addOption(settingOption("defaultPreset", "<name>", choice(PresetChoiceSchema)))
    .addOption(settingOption("defaultRewardMode", "<mode>", choice(RewardModeSchema)))
    .option("--secret-file <path>", "file holding the token secret (default: $AEB_SERVER_SECRET; replicas must share it)")
    .option("--auth-token-file <path>", "file holding the bearer token clients must send (default: $AEB_SERVER_TOKEN)")
    .addOption(settingOption("bodyLimitBytes", "<bytes>", positiveInteger))
    .addOption(settingOption("batchBodyLimitBytes", "<bytes>", positiveInteger))
    .addOption(settingOption("maxBatchSize", "<n>", positiveInteger))
    .addOption(settingOption("stepsInFlight", "<n>", positiveInteger))
    .addOption(settingOption("rateLimit", "<n>", nonNegativeInteger))
    .addOption(settingOption("rateWindowMs", "<seconds>", positiveInteger))
    .addOption(settingOption("authFailureLimit", "<n>", positiveInteger))
    .addOption(settingOption("stepTimeoutMs", "<ms>", positiveInteger))
    .addOption(settingOption("requestTimeoutMs", "<ms>", positiveInteger))
    .addOption(settingOption("maxConnections", "<n>", positiveInteger))
    .addOption(settingOption("allowedHosts", "<names>", hostList))
    .addOption(settingOption("sessionIdleTimeoutMs", "<seconds>", positiveInteger))
    .addOption(settingOption("maxSessions", "<n>", positiveInteger))
    .addOption(settingOption("sessionMemoryBytes", "<MiB>", positiveInteger))
    .addOption(settingOption("shutdownTimeoutMs", "<seconds>", positiveInteger))
    .addOption(settingOption("workers", "<n>", positiveInteger))
    .addOption(settingOption("stepThreads", "<n>", nonNegativeInteger))
    .option("--record <dir>", "append every finished episode to DIR/dialogues.jsonl in the run-record format (aeb report DIR reads it)")
    .addOption(settingOption("recordCondition", "<name>", conditionName))
    .addOption(settingOption("trustProxy"))
    .addOption(settingOption("logLevel", "<level>", choice(LogLevelSchema)))
    .addOption(settingOption("logRequests"))
    .addOption(
      new Option("--mock-user-latency <ms>", "benchmarks and tests: add this latency to every simulated-user call (a stand-in for a model)")
        .argParser(nonNegativeInteger)
        .hideHelp(),
    )
    .addHelpText(
      "after",
      "\nSecrets come from the environment (or files), never from flags:\n  AEB_SERVER_SECRET  HMAC secret of the state tokens (>= 16 bytes); without it a random one is used\n  AEB_SERVER_TOKEN   bearer token clients must send; required (>= 16 characters) with --host beyond loopback\n\nExamples:\n  aeb serve --suite starter --port 8787\n  AEB_SERVER_SECRET=... AEB_SERVER_TOKEN=... aeb serve --host 0.0.0.0 --workers 2 --config simulator.yaml --record runs/train\n",
    )
    .action(async (flags: ServeFlags) => {
      const loaded = configFromFlags({ config: flags.config, scenarios: flags.scenarios, suite: flags.suite, types: flags.types });
      // An LLM user's per-endpoint cap follows the steps in flight (src/server/simulator-capacity.ts).
      const stepsInFlight = flags.stepsInFlight ?? flags.maxBatch;
      const capacity = simulatorCapacity(loaded.simulator, stepsInFlight, flags.workers);
      const config = { ...loaded, simulator: capacity.simulator };
      if (!isClusterWorker()) {
        if (capacity.warning !== undefined) console.error(`aeb serve: warning: ${capacity.warning}`);
        else if (capacity.derived)
          console.error(
            `aeb serve: the simulator may make ${capacity.capPerEndpoint} model calls at once per replica${flags.workers > 1 ? " in each worker" : ""}, for ${stepsInFlight} steps in flight (--steps-in-flight)`,
          );
      }
      const scenarios = selectScenarios(config);
      const authToken =
        flags.authTokenFile !== undefined ? readSecretFile(flags.authTokenFile, "bearer token") : process.env.AEB_SERVER_TOKEN;
      assertServerBinding(flags.host, authToken);
      let secret: string | Buffer | undefined =
        flags.secretFile !== undefined ? readSecretFile(flags.secretFile, "secret") : process.env.AEB_SERVER_SECRET;
      if (secret !== undefined && secret !== "" && Buffer.byteLength(secret) < MIN_SECRET_BYTES)
        throw new ConfigError(`the token secret must be at least ${MIN_SECRET_BYTES} bytes`);
      if (secret === undefined || secret === "") {
        secret = randomSecret().toString("base64url");
        console.error(
          `aeb serve: warning: no AEB_SERVER_SECRET; using a random secret, so tokens die with this ${flags.workers > 1 ? "server" : "process"} and other replicas cannot verify them (give every replica the same secret)`,
        );
      }
      const describe = (url: string, userId: string) =>
        `aeb serve: listening on ${url} (${scenarios.length} scenarios, simulated user ${userId}, preset ${flags.preset}, reward ${flags.rewardMode}${flags.workers > 1 ? `, ${flags.workers} workers` : ""}${authToken ? ", bearer token required" : ""}${flags.record !== undefined ? `, recording to ${flags.record}` : ""}); docs at ${url}/docs`;

      if (flags.workers > 1 && !isClusterWorker()) {
        // The primary only supervises (and writes the recording); each worker runs this same command and serves.
        const recorder = flags.record !== undefined ? new EpisodeRecorder(flags.record) : undefined;
        const primary = runClusterPrimary({
          workers: flags.workers,
          env: { AEB_SERVER_SECRET: secret },
          shutdownTimeoutMs: settingFromFlag("shutdownTimeoutMs", flags.shutdownTimeout),
          log: (line) => console.error(`aeb serve: ${line}`),
          onListening: (url) =>
            console.log(describe(url, new PluginFactory({ cacheDir: config.cache?.dir }).simulatedUser(config.simulator).id)),
          ...(recorder !== undefined
            ? {
                onEpisode: (record) => recorder.append(record),
                recorderHealth: () => recorder.health,
                recordedEpisodes: () => recorder.count,
              }
            : {}),
        });
        if (recorder !== undefined)
          recorder.onHealthChange = (health) => {
            logRecorderHealth(recorder.dir, health);
            primary.recorderHealthChanged(health);
          };
        const stopped = await primary.stopped.finally(() => recorder?.close());
        if (!stopped.clean) process.exitCode = 1;
        console.error(`aeb serve: stopped${stopped.clean ? "" : " (a worker's shutdown cut requests, or a worker was killed)"}`);
        return;
      }

      // Calls held by the cap are counted once the server (and its metrics) exists, and warned about once.
      let countQueued: () => void = () => undefined;
      let warnedQueued = false;
      const onModelQueued = (role: string, endpoint: { maxConcurrencyPerEndpoint?: number | undefined }) => {
        countQueued();
        if (warnedQueued) return;
        warnedQueued = true;
        console.error(
          `aeb serve: warning: ${role} calls are waiting for a free slot: ${endpoint.maxConcurrencyPerEndpoint} per replica are in flight (maxConcurrencyPerEndpoint); more steps are in flight than the cap allows (see aeb_env_simulator_calls_queued_total, and --steps-in-flight)`,
        );
      };
      let user = new PluginFactory({
        cacheDir: config.cache?.dir,
        warn: (message) => console.error(`aeb serve: ${message}`),
        onModelQueued,
      }).simulatedUser(config.simulator);
      if (flags.mockUserLatency !== undefined)
        user = new DelayedSimulatedUser({ inner: user, latencyMs: flags.mockUserLatency, id: user.id });
      if (isClusterWorker()) listenToPrimary();
      const recorder = flags.record !== undefined && !isClusterWorker() ? new EpisodeRecorder(flags.record) : undefined;
      if (recorder !== undefined) recorder.onHealthChange = (health) => logRecorderHealth(recorder.dir, health);
      const recording =
        recorder !== undefined
          ? { write: (record: Parameters<EpisodeRecorder["append"]>[0]) => recorder.append(record), health: () => recorder.health }
          : { write: sendEpisodeToPrimary, health: primaryRecorderHealthNow };

      const server = await buildServer({
        scenarios,
        user,
        secret,
        authToken,
        defaultPreset: flags.preset,
        defaultRewardMode: flags.rewardMode,
        bodyLimitBytes: flags.bodyLimit,
        batchBodyLimitBytes: flags.batchBodyLimit,
        maxBatchSize: flags.maxBatch,
        rateLimit: flags.rateLimit,
        rateWindowMs: settingFromFlag("rateWindowMs", flags.rateWindow),
        authFailureLimit: flags.authFailureLimit,
        stepTimeoutMs: flags.stepTimeout,
        requestTimeoutMs: flags.requestTimeout,
        maxConnections: flags.maxConnections,
        ...(flags.allowHost !== undefined ? { allowedHosts: flags.allowHost } : {}),
        sessionIdleTimeoutMs: settingFromFlag("sessionIdleTimeoutMs", flags.sessionTtl),
        maxSessions: flags.maxSessions,
        sessionMemoryBytes: settingFromFlag("sessionMemoryBytes", flags.sessionMemory),
        trustProxy: flags.trustProxy ?? false,
        logger: flags.logLevel === "silent" ? false : { level: flags.logLevel },
        logRequests: flags.logRequests ?? false,
        clusterWorker: isClusterWorker(),
        stepThreads: flags.stepThreads ?? defaultStepThreads(flags.workers),
        ...(flags.record !== undefined ? { recording: { condition: flags.recordCondition, ...recording } } : {}),
      });
      countQueued = () => server.metrics.countSimulatorCallQueued();
      let url: string;
      try {
        url = await server.listen({ host: flags.host, port: flags.port });
      } catch (error) {
        // A port in use: close what was started (the step pool's threads would keep the process alive).
        await server.close();
        await recorder?.close();
        throw listenFailure(error, { host: flags.host, port: flags.port, holder: "another aeb serve?" });
      }
      if (isClusterWorker()) announceListening(url);
      else console.log(describe(url, user.id));

      const code = await untilShutdown(server, flags.shutdownTimeout, async () => {
        await recorder?.close();
        if (isClusterWorker()) {
          // Every answered step's episode was confirmed by the primary; the IPC channel would keep the worker alive.
          leaveCluster();
        } else {
          console.error("aeb serve: stopped");
        }
      });
      if (code !== 0) process.exitCode = code;
    });
}
