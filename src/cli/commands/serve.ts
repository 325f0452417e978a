import { readFileSync } from "node:fs";
import { InvalidArgumentError, Option, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { PluginFactory } from "../../runner/plugins.js";
import { selectScenarios } from "../../runner/run-benchmark.js";
import { PresetChoiceSchema, RewardModeSchema, type PresetChoice, type RewardMode } from "../../server/api-schemas.js";
import { assertSafeBinding, buildServer } from "../../server/app.js";
import { announceListening, isClusterWorker, runClusterPrimary } from "../../server/cluster.js";
import { DelayedSimulatedUser } from "../../server/delayed-user.js";
import { MIN_SECRET_BYTES, randomSecret } from "../../server/state-token.js";
import { nonNegativeInteger, positiveInteger } from "../options.js";
import { configFromFlags } from "./run.js";

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
  rateLimit: number;
  rateWindow: number;
  stepTimeout: number;
  requestTimeout: number;
  sessionTtl: number;
  maxSessions: number;
  shutdownTimeout: number;
  trustProxy?: boolean;
  logLevel: string;
  logRequests?: boolean;
  mockUserLatency?: number;
  workers: number;
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

function choice<T extends string>(schema: { options: readonly T[] }) {
  return (value: string): T => {
    if (!(schema.options as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${schema.options.join(", ")}, got "${value}"`);
    return value as T;
  };
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
    .option("--host <host>", "address to listen on; beyond loopback a bearer token is required", "127.0.0.1")
    .option("--port <n>", "port (0 picks a free one)", port, 8787)
    .addOption(new Option("--preset <name>", "preset when a reset names none (`scenario`: the scenario file's)").argParser(choice(PresetChoiceSchema)).default("rlver"))
    .addOption(new Option("--reward-mode <mode>", "reward mode when a reset names none (spec section 7)").argParser(choice(RewardModeSchema)).default("final"))
    .option("--secret-file <path>", "file holding the token secret (default: $AEB_SERVER_SECRET; replicas must share it)")
    .option("--auth-token-file <path>", "file holding the bearer token clients must send (default: $AEB_SERVER_TOKEN)")
    .option("--body-limit <bytes>", "largest request body", positiveInteger, 1024 * 1024)
    .option("--batch-body-limit <bytes>", "largest body of a batched step", positiveInteger, 8 * 1024 * 1024)
    .option("--max-batch <n>", "most steps in one batch", positiveInteger, 256)
    .option("--rate-limit <n>", "requests per client and window (0: no limit)", nonNegativeInteger, 600_000)
    .option("--rate-window <seconds>", "rate limit window", positiveInteger, 60)
    .option("--step-timeout <ms>", "a step whose simulated user takes longer is answered 504 (retryable)", positiveInteger, 60_000)
    .option("--request-timeout <ms>", "time to receive a whole request", positiveInteger, 60_000)
    .option("--session-ttl <seconds>", "idle time after which a session is dropped", positiveInteger, 600)
    .option("--max-sessions <n>", "most open sessions", positiveInteger, 10_000)
    .option("--shutdown-timeout <seconds>", "on SIGTERM/SIGINT, wait this long for in-flight steps before closing connections", positiveInteger, 30)
    .option("--workers <n>", "server processes sharing the port (one per core); the session API needs 1", positiveInteger, 1)
    .option("--trust-proxy", "trust X-Forwarded-For (behind a load balancer)")
    .option("--log-level <level>", "fatal, error, warn, info, debug or silent", "info")
    .option("--log-requests", "log every request (costly under load)")
    .addOption(new Option("--mock-user-latency <ms>", "benchmarks and tests: add this latency to every simulated-user call (a stand-in for a model)").argParser(nonNegativeInteger).hideHelp())
    .addHelpText(
      "after",
      "\nSecrets come from the environment (or files), never from flags:\n  AEB_SERVER_SECRET  HMAC secret of the state tokens (>= 16 bytes); without it a random one is used\n  AEB_SERVER_TOKEN   bearer token clients must send; required with --host beyond loopback\n\nExamples:\n  aeb serve --suite starter --port 8787\n  AEB_SERVER_SECRET=... AEB_SERVER_TOKEN=... aeb serve --host 0.0.0.0 --workers 2 --config simulator.yaml\n",
    )
    .action(async (flags: ServeFlags) => {
      const config = configFromFlags({ config: flags.config, scenarios: flags.scenarios, suite: flags.suite, types: flags.types, progress: false });
      const scenarios = selectScenarios(config);
      const authToken = flags.authTokenFile !== undefined ? readSecretFile(flags.authTokenFile, "bearer token") : process.env.AEB_SERVER_TOKEN;
      assertSafeBinding(flags.host, authToken);
      let secret: string | Buffer | undefined = flags.secretFile !== undefined ? readSecretFile(flags.secretFile, "secret") : process.env.AEB_SERVER_SECRET;
      if (secret !== undefined && secret !== "" && Buffer.byteLength(secret) < MIN_SECRET_BYTES) throw new ConfigError(`the token secret must be at least ${MIN_SECRET_BYTES} bytes`);
      if (secret === undefined || secret === "") {
        secret = randomSecret().toString("base64url");
        console.error(
          `aeb serve: warning: no AEB_SERVER_SECRET; using a random secret, so tokens die with this ${flags.workers > 1 ? "server" : "process"} and other replicas cannot verify them (give every replica the same secret)`,
        );
      }
      const describe = (url: string, userId: string) =>
        `aeb serve: listening on ${url} (${scenarios.length} scenarios, simulated user ${userId}, preset ${flags.preset}, reward ${flags.rewardMode}${flags.workers > 1 ? `, ${flags.workers} workers` : ""}${authToken ? ", bearer token required" : ""}); docs at ${url}/docs`;

      if (flags.workers > 1 && !isClusterWorker()) {
        // The primary only supervises; each worker runs this same command and serves.
        await runClusterPrimary({
          workers: flags.workers,
          env: { AEB_SERVER_SECRET: secret },
          shutdownTimeoutMs: flags.shutdownTimeout * 1000,
          log: (line) => console.error(`aeb serve: ${line}`),
          onListening: (url) => console.log(describe(url, new PluginFactory({ cacheDir: config.cache?.dir }).simulatedUser(config.simulator).id)),
        });
        console.error("aeb serve: stopped");
        return;
      }

      let user = new PluginFactory({ cacheDir: config.cache?.dir, warn: (message) => console.error(`aeb serve: ${message}`) }).simulatedUser(config.simulator);
      if (flags.mockUserLatency !== undefined) user = new DelayedSimulatedUser({ inner: user, latencyMs: flags.mockUserLatency, id: user.id });

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
        rateLimit: flags.rateLimit === 0 ? null : { max: flags.rateLimit, windowMs: flags.rateWindow * 1000 },
        stepTimeoutMs: flags.stepTimeout,
        requestTimeoutMs: flags.requestTimeout,
        sessionIdleTimeoutMs: flags.sessionTtl * 1000,
        maxSessions: flags.maxSessions,
        trustProxy: flags.trustProxy ?? false,
        logger: flags.logLevel === "silent" ? false : { level: flags.logLevel },
        logRequests: flags.logRequests ?? false,
        clusterWorker: isClusterWorker(),
      });
      const url = await server.listen({ host: flags.host, port: flags.port });
      if (isClusterWorker()) announceListening(url);
      else console.log(describe(url, user.id));

      await new Promise<void>((resolve) => {
        let stopping = false;
        const shutdown = (signal: NodeJS.Signals) => {
          // A worker ignores repeated signals (Ctrl-C reaches it and the primary forwards SIGTERM);
          // a second signal to a single server exits at once.
          if (stopping) {
            if (!isClusterWorker()) process.exit(130);
            return;
          }
          stopping = true;
          if (!isClusterWorker()) console.error(`aeb serve: ${signal}: finishing in-flight steps (at most ${flags.shutdownTimeout} s), then exiting`);
          const force = setTimeout(() => {
            console.error("aeb serve: shutdown timeout: closing the remaining connections");
            server.app.server.closeAllConnections();
          }, flags.shutdownTimeout * 1000);
          force.unref();
          server
            .close()
            .catch((error: unknown) => console.error(`aeb serve: error while closing: ${(error as Error).message}`))
            .finally(() => {
              clearTimeout(force);
              if (!isClusterWorker()) console.error("aeb serve: stopped");
              // A worker's IPC channel to the primary would keep it alive.
              else process.disconnect?.();
              resolve();
            });
        };
        process.on("SIGINT", shutdown);
        process.on("SIGTERM", shutdown);
      });
    });
}
