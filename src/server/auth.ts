import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { assertSafeBinding } from "../http/loopback.js";
import { EnvironmentError } from "./environment-error.js";

/**
 * Who may use the server: the bearer token, the rule that keeps it from being listened for beyond
 * loopback without one (or with a guessable one), and the limit on failed attempts.
 */

/** Routes anyone may call, even when a bearer token is configured. */
export const PUBLIC_PREFIXES = ["/healthz", "/docs", "/openapi.json"];

/** Beyond loopback a bearer token shorter than this is refused: a short token is guessed by brute force. */
export const MIN_BEARER_TOKEN_CHARS = 16;

/**
 * Listening beyond loopback without a bearer token would let anyone on the network use (and load)
 * the simulator; with a short one, guess it.
 */
export function assertServerBinding(host: string, authToken: string | undefined): void {
  const missing = authToken === undefined || authToken === "";
  assertSafeBinding(host, {
    app: "aeb serve",
    exposes: "the simulator (anyone could use and load it)",
    allowed: !missing && authToken.length >= MIN_BEARER_TOKEN_CHARS,
    howToAllow: missing
      ? "Listening beyond loopback needs a bearer token: set AEB_SERVER_TOKEN (or --auth-token-file)"
      : `Listening beyond loopback needs a bearer token of at least ${MIN_BEARER_TOKEN_CHARS} characters; AEB_SERVER_TOKEN has ${authToken.length} (e.g. openssl rand -hex 24)`,
  });
}

const digestOf = (value: string) => createHash("sha256").update(value, "utf8").digest();

export interface FailedAuthLimitOptions {
  /** Failed attempts a client may make per window; then its requests are refused (429) until the window ends. */
  max: number;
  windowMs: number;
  now?: () => number;
}

/** Clients tracked at most per window; beyond that, new clients share one count (memory stays bounded). */
const MAX_TRACKED_CLIENTS = 100_000;
const OVERFLOW_KEY = "(other clients)";

/**
 * Counts failed authentications per client in fixed windows. Every request, authenticated or not,
 * also counts towards the general rate limit; this much smaller budget stops a client that keeps
 * guessing tokens.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number>();
  private windowStart: number;
  private readonly now: () => number;

  constructor(private readonly options: FailedAuthLimitOptions) {
    this.now = options.now ?? Date.now;
    this.windowStart = this.now();
  }

  /** Seconds until the client may try again, or null when it is not blocked. */
  blockedFor(client: string): number | null {
    this.roll();
    if ((this.failures.get(this.keyOf(client)) ?? 0) < this.options.max) return null;
    return Math.max(1, Math.ceil((this.windowStart + this.options.windowMs - this.now()) / 1000));
  }

  recordFailure(client: string): void {
    this.roll();
    const key = this.keyOf(client);
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  private keyOf(client: string): string {
    return this.failures.has(client) || this.failures.size < MAX_TRACKED_CLIENTS ? client : OVERFLOW_KEY;
  }

  private roll(): void {
    if (this.now() - this.windowStart < this.options.windowMs) return;
    this.failures.clear();
    this.windowStart = this.now();
  }
}

/**
 * Requires `Authorization: Bearer <token>` on every route but the public ones. Checked in
 * `preParsing`, after the rate limiter's `onRequest`, so refused requests count towards the rate
 * limit too, and before the body is read.
 */
export interface BearerAuthOptions {
  authToken: string;
  failures: FailedAuthLimiter | null;
}

const bearerAuthPlugin: FastifyPluginCallback<BearerAuthOptions> = (app, options, pluginDone) => {
  const { failures } = options;
  // Compared as SHA-256 digests, in constant time whatever the given token's length.
  const expected = digestOf(options.authToken);
  // Callback style: no promise per request on the hot path.
  app.addHook("preParsing", (request, _reply, _payload, done) => {
    const path = request.url.split("?")[0] ?? "";
    if (PUBLIC_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return done();
    const blocked = failures?.blockedFor(request.ip) ?? null;
    if (blocked !== null) {
      return done(
        new EnvironmentError(
          429,
          "rate_limited",
          `too many failed authentications from this client; retry in ${blocked} s with the right bearer token`,
          { retryable: true, retryAfterSeconds: blocked },
        ),
      );
    }
    const header = request.headers.authorization;
    if (typeof header !== "string" || !header.startsWith("Bearer ")) {
      failures?.recordFailure(request.ip);
      return done(new EnvironmentError(401, "unauthorized", "this server needs an Authorization: Bearer <token> header"));
    }
    if (!timingSafeEqual(digestOf(header.slice("Bearer ".length).trim()), expected)) {
      failures?.recordFailure(request.ip);
      return done(new EnvironmentError(401, "unauthorized", "the bearer token is not accepted"));
    }
    done();
  });
  pluginDone();
};

/** The bearer token check of the whole app (a fastify plugin, registered at its root). */
export const bearerAuth = fp(bearerAuthPlugin, { name: "aeb-bearer-auth", fastify: "5.x" });
