/**
 * Configuration of one model served by one or more OpenAI-compatible replicas.
 *
 * Why a zod schema: endpoint configs come from YAML files and CLI flags
 * written by people running long, expensive benchmark jobs; a typo such as
 * `temprature` or a key pasted where its variable name belongs must fail
 * before the first request, not hours in. The object is strict for that
 * reason, and `apiKeyEnv` only accepts an environment-variable NAME so the key
 * itself never lives in config files, run records or outputs.
 */
import { z } from "zod";

const positiveInt = z.number().int().positive();

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Fields shared by the input forms (`baseUrl` or `baseUrls`). */
const fields = {
  /** Replicas serving the same model; requests are spread over them. No embedded credentials. */
  baseUrls: z.array(z.url({ protocol: /^https?$/ })).min(1).optional(),
  /** Shorthand for a single replica; normalised to `baseUrls: [baseUrl]`. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Model name as the server knows it (vLLM `--served-model-name`, Ollama tag...). */
  model: z.string().min(1),
  /**
   * NAME of the environment variable holding the API key, never the key.
   * When unset, a placeholder key is sent (local servers ignore it) and
   * OPENAI_API_KEY is deliberately NOT picked up, so a real OpenAI key is
   * never sent to an arbitrary endpoint.
   */
  apiKeyEnv: z
    .string()
    .regex(ENV_NAME, "apiKeyEnv must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself")
    .optional(),
  temperature: z.number().min(0).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxTokens: positiveInt.optional(),
  seed: z.number().int().optional(),
  /**
   * Stream replies as server-sent events. Off (the default), each reply comes
   * as one JSON body: about half the harness CPU per call, and what SAGE's and
   * RLVER's loops do; a stalled server is then cut by `timeoutMs`. On, every
   * chunk counts as progress, so `idleTimeoutMs` can cut a stall long before
   * `timeoutMs` (useful with long reasoning budgets and flaky servers).
   */
  stream: z.boolean().default(false),
  /** Upper bound for one attempt, from sending the request to the last chunk. */
  timeoutMs: positiveInt.default(120_000),
  /**
   * With `stream: true`, the longest silence tolerated (before headers or between chunks) before
   * the attempt is cut. Without streaming a server sends nothing until the reply is complete, so
   * only `timeoutMs` applies.
   */
  idleTimeoutMs: positiveInt.default(60_000),
  /**
   * In-flight requests allowed per replica; further requests queue. Unset: 16
   * (DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT), except where the caller knows better (`aeb serve`
   * derives it from the steps it expects in flight).
   */
  maxConcurrencyPerEndpoint: positiveInt.optional(),
  /** Retries after the first attempt for retryable failures. */
  maxRetries: z.number().int().min(0).default(4),
  retryBaseDelayMs: z.number().int().min(0).default(500),
  /** Cap on any single back-off, including a server's Retry-After. */
  retryMaxDelayMs: z.number().int().min(0).default(30_000),
  /**
   * When the endpoint keeps failing as a dead or overloaded server does (connection refused,
   * timeouts, 5xx: `failures` times in a row), calls stop spending retries and wait while one
   * probe request every `probeIntervalMs` checks whether it is back; after `maxWaitMs` they fail
   * and the run stops cleanly (finished dialogues kept; rerun to resume).
   */
  circuitBreaker: z
    .strictObject({
      failures: positiveInt.default(5),
      probeIntervalMs: positiveInt.default(2_000),
      maxWaitMs: z.number().int().min(0).default(600_000),
    })
    .default({ failures: 5, probeIntervalMs: 2_000, maxWaitMs: 600_000 }),
  /**
   * How `ChatRequest.jsonSchema` is sent: `json_schema` (strict schema-guided
   * decoding: OpenAI, vLLM, SGLang, recent Ollama), `json_object` (JSON mode
   * only; the prompt must describe the schema) or `none` (nothing is sent).
   */
  structuredOutput: z.enum(["json_schema", "json_object", "none"]).default("json_schema"),
  /**
   * Extra top-level request fields passed through verbatim, e.g.
   * `{ chat_template_kwargs: { enable_thinking: false } }` or `{ top_k: 20 }`.
   * They cannot override model, messages, stream or stream_options.
   */
  extraBody: z.record(z.string(), z.unknown()).optional(),
};

/** Zod schema of a model endpoint; parse config input with it. */
/** In-flight requests per replica when an endpoint's config sets none. */
export const DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT = 16;

export const ModelEndpointConfig = z
  .strictObject(fields)
  .superRefine((value, ctx) => {
    if ((value.baseUrl === undefined) === (value.baseUrls === undefined)) {
      ctx.addIssue({ code: "custom", message: "set exactly one of baseUrl or baseUrls", path: ["baseUrls"] });
      return;
    }
    const urls = value.baseUrls ?? (value.baseUrl === undefined ? [] : [value.baseUrl]);
    urls.forEach((u, index) => {
      const parsed = new URL(u);
      if (parsed.username !== "" || parsed.password !== "") {
        // fetch refuses such URLs, and they would leak through logs; the value is not echoed.
        ctx.addIssue({
          code: "custom",
          message: "base URLs must not embed credentials (user:password@); name the key's variable in apiKeyEnv",
          path: value.baseUrls === undefined ? ["baseUrl"] : ["baseUrls", index],
        });
      }
    });
    const normalised = urls.map((u) => u.replace(/\/+$/, ""));
    if (new Set(normalised).size !== normalised.length) {
      ctx.addIssue({
        code: "custom",
        message: "baseUrls lists the same replica twice (it would double that replica's concurrency limit)",
        path: ["baseUrls"],
      });
    }
  })
  .transform(({ baseUrl, baseUrls, ...rest }) => ({
    ...rest,
    baseUrls: baseUrls ?? (baseUrl === undefined ? [] : [baseUrl]),
  }));

/** Validated config: `baseUrls` always set, defaults filled in. */
export type ModelEndpointConfig = z.output<typeof ModelEndpointConfig>;
/** What a config file may contain before validation. */
export type ModelEndpointConfigInput = z.input<typeof ModelEndpointConfig>;

/** Validates and normalises config input; throws a ZodError naming the bad fields. */
export function parseModelEndpointConfig(input: unknown): ModelEndpointConfig {
  return ModelEndpointConfig.parse(input);
}
