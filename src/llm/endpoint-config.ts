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
  baseUrls: z
    .array(z.url({ protocol: /^https?$/ }))
    .min(1)
    .optional()
    .describe(
      "replicas serving the same model, each an OpenAI-compatible base URL ending in /v1; requests are spread over them (no credentials in the URL)",
    ),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "the server's OpenAI-compatible base URL, usually ending in /v1 (e.g. http://localhost:8000/v1); shorthand for one replica in baseUrls",
    ),
  model: z
    .string()
    .min(1)
    .describe(
      "the model's name as the server knows it (vLLM --served-model-name, an Ollama tag, an OpenAI model id); GET BASEURL/models lists them",
    ),
  // NAME only: the key itself never lives in config files, run records or outputs. When unset, a
  // placeholder key is sent (local servers ignore it) and OPENAI_API_KEY is deliberately not
  // picked up, so a real OpenAI key is never sent to an arbitrary endpoint.
  apiKeyEnv: z
    .string()
    .regex(ENV_NAME, "apiKeyEnv must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself")
    .optional()
    .describe(
      "the NAME of the environment variable holding the API key (e.g. OPENAI_API_KEY), never the key; unset: a placeholder key is sent, which local servers ignore",
    ),
  temperature: z
    .number()
    .min(0)
    .optional()
    .describe("sampling temperature sent with every call to this endpoint (a role's own temperature overrides it)"),
  topP: z.number().gt(0).max(1).optional().describe("nucleus sampling top_p sent with every call"),
  maxTokens: positiveInt
    .optional()
    .describe("token limit of every answer from this endpoint (a role's own maxTokens overrides it); the dry run shows the cap per role"),
  seed: z.number().int().optional().describe("sampling seed sent with every call, for servers that honour it"),
  stream: z
    .boolean()
    .default(false)
    .describe(
      "stream replies as server-sent events. Off (default): each reply is one JSON body, about half the harness CPU per call, and what SAGE's and RLVER's loops do; a stalled server is then cut by timeoutMs. On: every chunk counts as progress, so idleTimeoutMs can cut a stall early",
    ),
  timeoutMs: positiveInt
    .default(120_000)
    .describe("upper bound for one attempt, from sending the request to the last chunk, in milliseconds"),
  idleTimeoutMs: positiveInt
    .default(60_000)
    .describe(
      "with stream: true, the longest silence tolerated (before headers or between chunks) before the attempt is cut, in milliseconds",
    ),
  maxConcurrencyPerEndpoint: positiveInt
    .optional()
    .describe(
      "requests in flight per replica; more queue. Unset: 16 (DEFAULT_MAX_CONCURRENCY_PER_ENDPOINT), except where the caller knows better: aeb serve derives it from the steps it expects in flight",
    ),
  maxRetries: z
    .number()
    .int()
    .min(0)
    .default(4)
    .describe("retries after the first attempt, for retryable failures (timeouts, connection errors, 408/409/429/5xx)"),
  retryBaseDelayMs: z
    .number()
    .int()
    .min(0)
    .default(500)
    .describe("back-off base in milliseconds: retry n waits a random time up to base x 2^n (full jitter), capped by retryMaxDelayMs"),
  retryMaxDelayMs: z
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe("cap on any single back-off, a server's Retry-After included, in milliseconds"),
  circuitBreaker: z
    .strictObject({
      failures: positiveInt.default(5).describe("failures in a row (connection refused, timeouts, 5xx) that open the breaker"),
      probeIntervalMs: positiveInt
        .default(2_000)
        .describe("while open, one probe request this often (milliseconds) checks whether the endpoint is back"),
      maxWaitMs: z
        .number()
        .int()
        .min(0)
        .default(600_000)
        .describe("how long calls wait for the endpoint to come back (milliseconds) before they fail and the run stops cleanly"),
    })
    .default({ failures: 5, probeIntervalMs: 2_000, maxWaitMs: 600_000 })
    .describe(
      "when the endpoint keeps failing as a dead or overloaded server does, calls stop spending retries and wait for it; after maxWaitMs the run stops cleanly (finished dialogues kept; rerun to resume)",
    ),
  structuredOutput: z
    .enum(["json_schema", "json_object", "none"])
    .default("json_schema")
    .describe(
      "how a JSON answer is asked for: json_schema (strict schema-guided decoding: OpenAI, vLLM, SGLang, recent Ollama), json_object (JSON mode only; the prompt describes the schema) or none",
    ),
  extraBody: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "extra top-level request fields passed through verbatim, e.g. { chat_template_kwargs: { enable_thinking: false } } or { top_k: 20 }; they cannot override model, messages, stream or stream_options",
    ),
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
