/**
 * Entry point behind `aeb mock-llm`: start the mock OpenAI-compatible server
 * from plain options (as a CLI parser produces them) and print its URL.
 *
 * Why a separate function: the CLI wiring lives elsewhere; this keeps flag
 * semantics (and the script-file format) testable without spawning a
 * process. A script file lets people stand up a fake simulated user or agent
 * for end-to-end runs without writing code:
 *
 * ```json
 * {
 *   "models": ["mock-model"],
 *   "replies": ["Hi.", { "content": "{\"mood\": \"low\"}", "reasoning": "..." }],
 *   "latency": { "medianMs": 800, "sigma": 0.6, "seed": 1 },
 *   "faults": [{ "type": "status", "status": 429, "retryAfter": 2, "probability": 0.05 }]
 * }
 * ```
 *
 * A bare JSON array is shorthand for `{ "replies": [...] }`. Flags override
 * the file's settings.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import {
  startMockLlmServer,
  type MockFault,
  type MockLatency,
  type MockLlmServer,
  type MockLlmServerOptions,
  type MockReplyValue,
} from "./mock-llm-server.js";

const nonNegative = z.number().min(0);

const ReplySchema = z.union([
  z.string(),
  z.strictObject({
    content: z.string(),
    reasoning: z.string().optional(),
    finishReason: z.string().optional(),
    usage: z.strictObject({ promptTokens: nonNegative, completionTokens: nonNegative }).optional(),
  }),
]);

const LatencySchema = z.union([
  nonNegative,
  z.strictObject({ medianMs: nonNegative, sigma: nonNegative, seed: z.number().int().optional() }),
]);

const trigger = {
  on: z.array(z.number().int().positive()).optional(),
  probability: z.number().min(0).max(1).optional(),
};

const FaultSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("status"),
    status: z.number().int().min(100).max(599),
    message: z.string().optional(),
    retryAfter: z.union([nonNegative, z.string()]).optional(),
    ...trigger,
  }),
  z.strictObject({ type: z.literal("hang"), ...trigger }),
  z.strictObject({
    type: z.literal("stall-after-headers"),
    afterChunks: z.number().int().min(0).optional(),
    keepAliveMs: z.number().int().positive().optional(),
    ...trigger,
  }),
  z.strictObject({ type: z.literal("drop-mid-stream"), afterChunks: z.number().int().min(0).optional(), ...trigger }),
  z.strictObject({ type: z.literal("truncated-stream"), afterChunks: z.number().int().min(0).optional(), ...trigger }),
  z.strictObject({
    type: z.literal("error-event"),
    afterChunks: z.number().int().min(0).optional(),
    code: z.number().int().optional(),
    message: z.string().optional(),
    ...trigger,
  }),
  z.strictObject({ type: z.literal("empty-completion"), ...trigger }),
]);

const MockScriptObject = z.strictObject({
  replies: z.array(ReplySchema).min(1).optional(),
  reasoning: z.string().optional(),
  reasoningField: z.enum(["reasoning_content", "reasoning"]).optional(),
  models: z.array(z.string().min(1)).min(1).optional(),
  latency: LatencySchema.optional(),
  chunkChars: z.number().int().positive().optional(),
  chunkDelayMs: nonNegative.optional(),
  faults: z.array(FaultSchema).optional(),
  seed: z.number().int().optional(),
});

/** A validated script file. */
export type MockScript = z.output<typeof MockScriptObject>;

/** Format of a `--script` file: the object above, or a bare array of replies. */
export const MockScriptSchema = z.union([
  z
    .array(ReplySchema)
    .min(1)
    .transform((replies): MockScript => ({ replies })),
  MockScriptObject,
]);

/** Options as the `aeb mock-llm` command passes them. */
export interface MockLlmCliOptions {
  /** Default 8000 (0 picks a free port). */
  port?: number;
  /** Default 127.0.0.1; use 0.0.0.0 to serve other machines. */
  host?: string;
  /** Model name(s) to serve. Default "mock-model". */
  model?: string | string[];
  /** Fixed reply text (exclusive with `script`). */
  reply?: string;
  /** Path to a JSON script file (see module docs). */
  script?: string;
  /** Fixed latency before each response. */
  latencyMs?: number;
  /** Log-normal latency median (with `latencySigma`). */
  latencyMedianMs?: number;
  latencySigma?: number;
  /** Seed for latency and probabilistic faults. */
  seed?: number;
  /** Reasoning text attached to every reply. */
  reasoning?: string;
  chunkChars?: number;
  chunkDelayMs?: number;
  /** Probability of answering with `failureStatus` instead of a reply. */
  failureRate?: number;
  /** Status used by `failureRate`. Default 500. */
  failureStatus?: number;
  /** Keep every request for `server.requests` (default true; the `aeb mock-llm` command passes false). */
  recordRequests?: boolean;
}

export interface MockLlmCliIo {
  /** Where the listening line goes. Default console.log. */
  log?: (line: string) => void;
}

const CliOptionsSchema = z.object({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  model: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  reply: z.string().optional(),
  script: z.string().min(1).optional(),
  latencyMs: nonNegative.optional(),
  latencyMedianMs: nonNegative.optional(),
  latencySigma: nonNegative.optional(),
  seed: z.number().int().optional(),
  reasoning: z.string().optional(),
  chunkChars: z.number().int().positive().optional(),
  chunkDelayMs: nonNegative.optional(),
  failureRate: z.number().min(0).max(1).optional(),
  failureStatus: z.number().int().min(400).max(599).optional(),
  recordRequests: z.boolean().optional(),
});

/** Reads and validates a script file; errors name the file. */
export async function loadMockScript(path: string): Promise<MockScript> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`mock-llm: cannot read script ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = MockScriptSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`mock-llm: invalid script ${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Combines flags and script into server options (flags win). */
export async function mockServerOptionsFromCli(input: MockLlmCliOptions): Promise<MockLlmServerOptions> {
  const options = CliOptionsSchema.parse(input);
  if (options.reply !== undefined && options.script !== undefined) {
    throw new Error("mock-llm: use either --reply or --script, not both");
  }
  if ((options.latencyMedianMs === undefined) !== (options.latencySigma === undefined)) {
    throw new Error("mock-llm: --latency-median-ms and --latency-sigma go together");
  }
  if (options.latencyMs !== undefined && options.latencyMedianMs !== undefined) {
    throw new Error("mock-llm: use either a fixed latency or a log-normal one");
  }
  const scriptObject: MockScript = options.script !== undefined ? await loadMockScript(options.script) : {};

  const server: MockLlmServerOptions = {
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 8000,
  };
  if (options.recordRequests !== undefined) server.recordRequests = options.recordRequests;
  const models = options.model !== undefined ? [options.model].flat() : scriptObject.models;
  if (models !== undefined) server.models = models;
  const replies: readonly MockReplyValue[] | undefined = scriptObject.replies;
  if (options.reply !== undefined) server.reply = options.reply;
  else if (replies !== undefined) server.reply = replies.length === 1 ? (replies[0] as MockReplyValue) : replies;
  const reasoning = options.reasoning ?? scriptObject.reasoning;
  if (reasoning !== undefined) server.reasoning = reasoning;
  if (scriptObject.reasoningField !== undefined) server.reasoningField = scriptObject.reasoningField;

  let latency: MockLatency | undefined = scriptObject.latency;
  if (options.latencyMs !== undefined) latency = options.latencyMs;
  if (options.latencyMedianMs !== undefined && options.latencySigma !== undefined) {
    latency = {
      medianMs: options.latencyMedianMs,
      sigma: options.latencySigma,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    };
  }
  if (latency !== undefined) server.latency = latency;
  const chunkChars = options.chunkChars ?? scriptObject.chunkChars;
  if (chunkChars !== undefined) server.chunkChars = chunkChars;
  const chunkDelayMs = options.chunkDelayMs ?? scriptObject.chunkDelayMs;
  if (chunkDelayMs !== undefined) server.chunkDelayMs = chunkDelayMs;
  const seed = options.seed ?? scriptObject.seed;
  if (seed !== undefined) server.seed = seed;

  const faults: MockFault[] = [...(scriptObject.faults ?? [])];
  if (options.failureRate !== undefined && options.failureRate > 0) {
    faults.push({ type: "status", status: options.failureStatus ?? 500, probability: options.failureRate });
  }
  if (faults.length > 0) server.faults = faults;
  return server;
}

/**
 * Starts the mock server and prints where it listens. Returns the running
 * server; the caller closes it (e.g. on SIGINT).
 */
export async function runMockLlmServer(options: MockLlmCliOptions = {}, io: MockLlmCliIo = {}): Promise<MockLlmServer> {
  const serverOptions = await mockServerOptionsFromCli(options);
  const server = await startMockLlmServer(serverOptions);
  const log = io.log ?? ((line: string) => console.log(line));
  const models = (serverOptions.models ?? ["mock-model"]).join(", ");
  log(`mock LLM server listening at ${server.url} (models: ${models})`);
  return server;
}
