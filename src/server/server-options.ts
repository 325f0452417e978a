import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { PresetChoiceSchema, RewardModeSchema } from "./api-schemas.js";

/**
 * Every setting of the environment server with its default, written here once: `buildServer` and
 * `Environment` read their defaults from `SERVER_DEFAULTS`, `aeb serve` takes its flags' names,
 * help texts (`description`) and defaults (in the flag's unit) from the schema, and docs/server.md's
 * table of defaults is `serverDefaultsTable()` (test/http-foundation.test.ts fails when it is stale).
 */

/** How a setting is shown as an `aeb serve` flag (a type, not an interface: zod's metadata needs an index signature). */
export type FlagMeta = {
  /** The flag of `aeb serve`. */
  flag: string;
  /** The flag's value is the setting divided by this (e.g. 1000: the flag is in seconds, the setting in ms). */
  scale?: number;
  /** The flag's unit, shown in the table. */
  unit?: string;
  /** What `aeb serve` uses instead of the library's default, when it differs. */
  serveDefault?: string;
  /** What the setting does: the flag's help in `aeb serve --help` and the last column of docs/server.md's table. */
  description: string;
};

const MiB = 1024 * 1024;
const count = () => z.number().int().min(1);
const milliseconds = () => z.number().int().min(1);
const bytes = () => z.number().int().min(1);
const flag = (meta: FlagMeta) => meta;

/** What `buildServer` reads besides its parts (scenarios, user, secret, token, recorder): its limits and defaults. */
export const ServerSettingsSchema = z.strictObject({
  defaultPreset: PresetChoiceSchema.default("rlver").meta(
    flag({ flag: "--preset", description: "preset when a reset names none (`scenario`: the scenario file's); RLVER trained with `rlver`" }),
  ),
  defaultRewardMode: RewardModeSchema.default("final").meta(
    flag({
      flag: "--reward-mode",
      description: "reward mode when a reset names none: `final` (emotion/100 at the end) or `delta` (change/100 per step)",
    }),
  ),
  stepTimeoutMs: milliseconds()
    .default(60_000)
    .meta(
      flag({ flag: "--step-timeout", unit: "ms", description: "a step whose simulated user takes longer is answered 504 (retryable)" }),
    ),
  bodyLimitBytes: bytes()
    .default(MiB)
    .meta(flag({ flag: "--body-limit", unit: "bytes", description: "largest request body" })),
  batchBodyLimitBytes: bytes()
    .default(8 * MiB)
    .meta(flag({ flag: "--batch-body-limit", unit: "bytes", description: "largest body of a batched step" })),
  maxBatchSize: count()
    .default(256)
    .meta(flag({ flag: "--max-batch", description: "most steps in one batch" })),
  rateLimit: z
    .number()
    .int()
    .min(0)
    .default(600_000)
    .meta(flag({ flag: "--rate-limit", description: "requests per client (IP) and window; 0: no limit" })),
  rateWindowMs: milliseconds()
    .default(60_000)
    .meta(
      flag({
        flag: "--rate-window",
        scale: 1000,
        unit: "s",
        description: "the window of the rate limit and of the failed-authentication limit",
      }),
    ),
  authFailureLimit: count()
    .default(30)
    .meta(
      flag({
        flag: "--auth-failure-limit",
        description: "failed authentications per client and window before its requests are refused (429) until the window ends",
      }),
    ),
  sessionIdleTimeoutMs: milliseconds()
    .default(10 * 60_000)
    .meta(flag({ flag: "--session-ttl", scale: 1000, unit: "s", description: "a session unused this long is dropped" })),
  maxSessions: count()
    .default(10_000)
    .meta(flag({ flag: "--max-sessions", description: "most open sessions" })),
  sessionMemoryBytes: bytes()
    .default(1024 * MiB)
    .meta(flag({ flag: "--session-memory", scale: MiB, unit: "MiB", description: "memory the sessions may hold (estimated)" })),
  requestTimeoutMs: milliseconds()
    .default(60_000)
    .meta(
      flag({
        flag: "--request-timeout",
        unit: "ms",
        description: "time to receive a whole request, headers included; a slower client is answered 408 and disconnected",
      }),
    ),
  maxConnections: count()
    .default(10_000)
    .meta(flag({ flag: "--max-connections", description: "most open connections; beyond it new ones are closed at once" })),
  allowedHosts: z
    .array(z.string().min(1))
    .default([])
    .meta(
      flag({
        flag: "--allow-host",
        description:
          "on loopback, Host names accepted besides 127.0.0.1, localhost and [::1] (a reverse proxy on this machine); comma-separated",
      }),
    ),
  logRequests: z
    .boolean()
    .default(false)
    .meta(flag({ flag: "--log-requests", description: "log every request (costly at thousands of steps per second)" })),
  trustProxy: z
    .boolean()
    .default(false)
    .meta(
      flag({ flag: "--trust-proxy", description: "trust X-Forwarded-For (behind a load balancer), so rate limits key on the real client" }),
    ),
  stepThreads: z
    .number()
    .int()
    .min(0)
    .default(0)
    .meta(
      flag({
        flag: "--step-threads",
        serveDefault: "cores / `--workers`, at least 1",
        description:
          "threads per process playing `/v1/step/batch` off the event loop, for a CPU-bound simulated user (the offline one); 0: on the event loop",
      }),
    ),
});
export type ServerSettings = z.infer<typeof ServerSettingsSchema>;
/** The settings as `buildServer` takes them: each may be left out for its default. */
export type ServerSettingsInput = z.input<typeof ServerSettingsSchema>;

/** The log levels of `aeb serve --log-level`. */
export const LogLevelSchema = z.enum(["fatal", "error", "warn", "info", "debug", "silent"]);

/** `aeb serve`'s settings beyond the server's own: where and how the process listens, records and stops. */
export const ServeSettingsSchema = ServerSettingsSchema.extend({
  host: z
    .string()
    .min(1)
    .default("127.0.0.1")
    .meta(flag({ flag: "--host", description: "address to listen on; beyond loopback a bearer token of 16+ characters is required" })),
  port: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8787)
    .meta(flag({ flag: "--port", description: "port (0 picks a free one)" })),
  workers: count()
    .default(1)
    .meta(flag({ flag: "--workers", description: "server processes sharing the port (one per core); the session API needs 1" })),
  stepsInFlight: count()
    .optional()
    .meta(
      flag({
        flag: "--steps-in-flight",
        serveDefault: "`--max-batch`",
        description:
          "steps expected in flight at once, over all workers: an LLM simulated user with no maxConcurrencyPerEndpoint gets that many model calls at once",
      }),
    ),
  shutdownTimeoutMs: milliseconds()
    .default(30_000)
    .meta(
      flag({
        flag: "--shutdown-timeout",
        scale: 1000,
        unit: "s",
        description: "on SIGTERM/SIGINT, wait this long for in-flight requests; if any are cut, exit 1",
      }),
    ),
  recordCondition: z
    .string()
    .regex(/^[\w.-]{1,100}$/)
    .default("train")
    .meta(flag({ flag: "--record-condition", description: "condition of recorded episodes whose reset tags name none (`--record`)" })),
  logLevel: LogLevelSchema.default("info").meta(flag({ flag: "--log-level", description: "fatal, error, warn, info, debug or silent" })),
});
export type ServeSettings = z.infer<typeof ServeSettingsSchema>;

/** Every default of the server, once. */
export const SERVER_DEFAULTS: ServerSettings = ServerSettingsSchema.parse({});
/** Every default of `aeb serve`, once (the server's and the process's). */
export const SERVE_DEFAULTS: ServeSettings = ServeSettingsSchema.parse({});

/** The settings among `options` (the rest are the server's parts), validated and with their defaults; a bad one is a ConfigError naming it. */
export function serverSettings(options: object): ServerSettings {
  const given = Object.fromEntries(
    Object.keys(ServerSettingsSchema.shape).map((key) => [key, (options as Record<string, unknown>)[key]] as const),
  );
  const parsed = ServerSettingsSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? "");
    const meta = metaOf(ServerSettingsSchema.shape[key as keyof ServerSettings]);
    return `${issue.path.map(String).join(".")}${meta === undefined ? "" : ` (${meta.flag})`}: ${issue.message}, got ${JSON.stringify(given[key])}`;
  });
  throw new ConfigError(`invalid server option ${problems.join("; ")}`);
}

/** A setting's default in its `aeb serve` flag's unit (what commander shows as the flag's default). */
export function flagDefault<Key extends keyof ServeSettings>(key: Key): ServeSettings[Key] {
  const value = SERVE_DEFAULTS[key];
  const scale = metaOf(ServeSettingsSchema.shape[key])?.scale;
  return (scale === undefined || typeof value !== "number" ? value : value / scale) as ServeSettings[Key];
}

/** How a setting is shown as an `aeb serve` flag: its name, unit, help text (`description`) and serve default. */
export function flagMeta(key: keyof ServeSettings): FlagMeta {
  const meta = metaOf(ServeSettingsSchema.shape[key]);
  if (meta === undefined) throw new Error(`server setting ${key} has no flag metadata`);
  return meta;
}

/** A flag's value as the setting (seconds as ms, MiB as bytes): the inverse of `flagDefault`. */
export function settingFromFlag(key: keyof ServeSettings, value: number): number {
  return value * (metaOf(ServeSettingsSchema.shape[key])?.scale ?? 1);
}

function metaOf(schema: z.ZodType | undefined): FlagMeta | undefined {
  return schema?.meta() as FlagMeta | undefined;
}

/** docs/server.md's table of `aeb serve`'s flags and their defaults, from the schema. */
export function serverDefaultsTable(): string {
  const rows = Object.keys(ServeSettingsSchema.shape).map((key) => {
    const meta = flagMeta(key as keyof ServeSettings);
    const value = flagDefault(key as keyof ServeSettings);
    const shown =
      value === undefined
        ? "-"
        : Array.isArray(value)
          ? value.length === 0
            ? "none"
            : value.join(", ")
          : `\`${String(value)}\`${meta.unit === undefined ? "" : ` ${meta.unit}`}`;
    const serve = meta.serveDefault === undefined ? shown : `${shown === "-" ? "" : `${shown}; `}aeb serve: ${meta.serveDefault}`;
    return `| \`${meta.flag}\` | \`${key}\` | ${serve} | ${meta.description} |`;
  });
  return ["| flag | setting | default | what it sets |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
