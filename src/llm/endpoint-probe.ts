/**
 * Preflight: is every replica reachable, and does it serve the model?
 *
 * Why: a benchmark run fans out into thousands of calls; a typo in a base
 * URL or model name should fail in a second with a message naming the
 * endpoint, not after the first retry budget is exhausted hours later (or,
 * worse, after other replicas silently absorbed the load of a dead one).
 *
 * How: `GET /models` on each base URL, in parallel. If the list names the
 * model, the replica passes; if it lists other models only, it fails and says
 * what it does serve. Servers or proxies without `/models` (404/405/501, or an
 * empty list) get a 1-token completion instead. A 429 on that completion
 * passes: the model answered, it is merely rate-limited right now.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { ModelEndpointConfig, type ModelEndpointConfigInput } from "./endpoint-config.js";
import { ModelProbeError, type ProbeFailure } from "./errors.js";
import { findErrorCode } from "./openai-error-mapping.js";
import { displayEndpoint, redactSecrets } from "./redaction.js";
import { createSdkClient, resolveApiKey, type FetchFn } from "./sdk-client.js";

export interface ProbeOptions {
  fetch?: FetchFn | undefined;
  /** Where `apiKeyEnv` is looked up. Defaults to process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Per-endpoint budget. Default: the smaller of the config's timeoutMs and 15 s. */
  timeoutMs?: number | undefined;
}

/** How one replica passed. */
export interface ProbeResult {
  endpoint: string;
  via: "models" | "completion";
  latencyMs: number;
  /** E.g. "rate-limited (HTTP 429)". */
  note?: string;
}

type Outcome = { ok: true; result: ProbeResult } | { ok: false; failure: ProbeFailure };

const NOT_SERVED = new Set([404, 405, 501]);

/** What a person can do about an HTTP status from the probe: the cause in their config, and the fix. */
function statusHint(status: number, baseUrl: string, apiKeyEnv: string | undefined): string {
  if (status === 401 || status === 403) {
    return apiKeyEnv === undefined
      ? "; the server wants an API key and none was configured (a placeholder was sent): set apiKeyEnv (or --api-key-env) to the NAME of the environment variable holding the key"
      : `; the server refused the key in $${apiKeyEnv}: check that variable holds this server's key`;
  }
  if (status === 404) {
    const path = new URL(baseUrl).pathname.replace(/\/+$/, "");
    return /\/v\d+$/.test(path)
      ? "; nothing answers chat completions at this URL: check the base URL against the server's documentation"
      : `; OpenAI-compatible servers answer under /v1: try baseUrl ${baseUrl.replace(/\/+$/, "")}/v1`;
  }
  return "";
}

function describe(error: unknown, timedOut: boolean, timeoutMs: number, hint: (status: number) => string = () => ""): string {
  if (timedOut || error instanceof APIConnectionTimeoutError) return `no answer within ${timeoutMs} ms`;
  if (error instanceof APIConnectionError) {
    return `unreachable (${findErrorCode(error.cause) ?? error.message})`;
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === "string" ? body.message : error.message;
    return `HTTP ${error.status}: ${message.slice(0, 300)}${hint(error.status)}`;
  }
  return error instanceof Error ? error.message.slice(0, 300) : String(error);
}

/**
 * Checks every base URL of `config`. Resolves with one result per replica
 * (config order) or rejects with a {@link ModelProbeError} listing every
 * failing endpoint (credentials stripped, key redacted) and the model.
 */
export async function probe(config: ModelEndpointConfigInput | ModelEndpointConfig, options: ProbeOptions = {}): Promise<ProbeResult[]> {
  const parsed = ModelEndpointConfig.parse(config);
  const { apiKey, secrets } = resolveApiKey(parsed, options.env);
  const timeoutMs = options.timeoutMs ?? Math.min(parsed.timeoutMs, 15_000);

  const outcomes = await Promise.all(
    parsed.baseUrls.map(async (baseUrl): Promise<Outcome> => {
      const endpoint = displayEndpoint(baseUrl);
      const client = createSdkClient({ baseUrl, apiKey, timeoutMs, fetch: options.fetch });
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const started = Date.now();
      const hint = (status: number) => statusHint(status, baseUrl, parsed.apiKeyEnv);
      const fail = (reason: string): Outcome => ({
        ok: false,
        failure: { endpoint, reason: redactSecrets(reason, secrets) },
      });
      const pass = (via: ProbeResult["via"], note?: string): Outcome => ({
        ok: true,
        result: { endpoint, via, latencyMs: Date.now() - started, ...(note !== undefined ? { note } : {}) },
      });
      try {
        try {
          const page = await client.models.list({ signal: controller.signal, timeout: timeoutMs });
          const ids = page.data.map((m) => m.id);
          if (ids.includes(parsed.model)) return pass("models");
          if (ids.length > 0) {
            const shown = ids.slice(0, 10).join(", ") + (ids.length > 10 ? `, … (${ids.length} in all)` : "");
            return fail(`does not serve model "${parsed.model}" (serves: ${shown})`);
          }
        } catch (error) {
          const status = error instanceof APIError ? error.status : undefined;
          if (status === undefined || !NOT_SERVED.has(status)) return fail(describe(error, timedOut, timeoutMs, hint));
        }
        try {
          await client.chat.completions.create(
            { model: parsed.model, messages: [{ role: "user", content: "ping" }], max_tokens: 1, stream: false },
            { signal: controller.signal, timeout: timeoutMs },
          );
          return pass("completion");
        } catch (error) {
          if (error instanceof APIError && error.status === 429) return pass("completion", "rate-limited (HTTP 429)");
          return fail(describe(error, timedOut, timeoutMs, hint));
        }
      } finally {
        clearTimeout(timer);
      }
    }),
  );

  const failures = outcomes.flatMap((o) => (o.ok ? [] : [o.failure]));
  if (failures.length > 0) throw new ModelProbeError(failures, { model: parsed.model, secrets });
  return outcomes.flatMap((o) => (o.ok ? [o.result] : []));
}
