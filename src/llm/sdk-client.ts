/**
 * Building `openai` SDK clients safely for arbitrary OpenAI-compatible servers.
 *
 * Why this needs care: by default the SDK reads OPENAI_API_KEY,
 * OPENAI_ADMIN_KEY, OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment
 * and sends them to whatever base URL it is given. In AEB a config can point
 * at a colleague's vLLM box or a community proxy, so a real OpenAI key must
 * only ever be sent where a config explicitly asks for it via `apiKeyEnv`.
 * Every ambient credential is therefore pinned to null here, and a
 * placeholder key is sent when no key is configured (vLLM, SGLang and Ollama
 * ignore it; the SDK refuses to run without one).
 *
 * SDK retries are disabled (`maxRetries: 0`): retrying lives in the model
 * client, which knows about replicas, Retry-After caps and idle timeouts.
 */
import OpenAI from "openai";
import { ModelConfigError } from "./errors.js";
import { displayEndpoint } from "./redaction.js";
import { createUndiciFetch, type FetchFn } from "./undici-fetch.js";

/** Key sent when the config names no key variable (vLLM's documented convention). */
export const PLACEHOLDER_API_KEY = "EMPTY";

export type { FetchFn } from "./undici-fetch.js";

export interface ResolvedApiKey {
  apiKey: string;
  /** Values to redact from every message: the key (if any) and base-URL query strings. */
  secrets: string[];
}

/**
 * Reads the key from the environment variable named by `apiKeyEnv`. Fails with
 * a message naming the variable (never a value) when it is unset or empty.
 */
export function resolveApiKey(
  config: { apiKeyEnv?: string | undefined; model: string; baseUrls: readonly string[] },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedApiKey {
  // Query strings of base URLs (e.g. Azure-style `?api-key=`) are treated as secrets too.
  const urlSecrets = config.baseUrls.flatMap((u) => {
    try {
      const search = new URL(u).search;
      return search.length > 1 ? [search.slice(1)] : [];
    } catch {
      return [];
    }
  });
  if (config.apiKeyEnv === undefined) return { apiKey: PLACEHOLDER_API_KEY, secrets: urlSecrets };
  const value = env[config.apiKeyEnv];
  if (value === undefined || value.trim() === "") {
    throw new ModelConfigError(
      `environment variable ${config.apiKeyEnv} (named by apiKeyEnv) is not set or empty: export ${config.apiKeyEnv}=<your key> before running, or drop apiKeyEnv for a server that needs no key`,
      {
        endpoint: config.baseUrls.map(displayEndpoint).join(", "),
        model: config.model,
      },
    );
  }
  return { apiKey: value, secrets: [value, ...urlSecrets] };
}

export interface SdkClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Header-phase timeout handed to the SDK; the model client enforces the full budget itself. */
  timeoutMs: number;
  /** Defaults to {@link createUndiciFetch} (see undici-fetch.ts for why not the global fetch). */
  fetch?: FetchFn | undefined;
}

let defaultFetch: FetchFn | undefined;

/** One SDK client for one base URL, with ambient credentials and SDK retries off. */
export function createSdkClient(options: SdkClientOptions): OpenAI {
  return new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: options.timeoutMs,
    fetch: options.fetch ?? (defaultFetch ??= createUndiciFetch()),
  });
}
