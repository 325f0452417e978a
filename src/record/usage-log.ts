import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { UsageEntrySchema, type UsageEntry } from "../analysis/summary-schema.js";
import { RunDirectoryError, formatIssues } from "../core/errors.js";
import type { UsageEvent, UsageSink } from "../llm/chat-model.js";
import { scanJsonlFile } from "../core/jsonl.js";
import { LEGACY_USAGE_FILE, USAGE_LOG_FILE } from "./files.js";
import { invalidLinesError, JsonlAppender } from "./jsonl-file.js";

/**
 * usage.jsonl: every model call and every HTTP request, appended as it happens, so that token
 * usage is counted from what the directory holds and a kill loses nothing. A request line is
 * written before the request is sent; a call line when the call ends (answered, from the cache,
 * or failed). Totals per model and role are sums over the lines.
 */
export const UsageEventSchema: z.ZodType<UsageEvent> = z.discriminatedUnion("event", [
  /** A model client was made for this role (lists every model of the run, in the order they were made). */
  z.strictObject({ event: z.literal("model"), role: z.string(), model: z.string() }),
  /** An HTTP request is about to be sent; `retry` when it repeats a failed one. */
  z.strictObject({ event: z.literal("request"), role: z.string(), model: z.string(), retry: z.boolean() }),
  /** A call ended. Tokens count only for calls answered by a server. */
  z.strictObject({
    event: z.literal("call"),
    role: z.string(),
    model: z.string(),
    outcome: z.enum(["answered", "cached", "failed"]),
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
  }),
]);
export type { UsageEvent, UsageSink } from "../llm/chat-model.js";

const emptyEntry = (role: string, model: string): UsageEntry => ({
  model,
  role,
  calls: 0,
  cachedCalls: 0,
  failedCalls: 0,
  requests: 0,
  retries: 0,
  promptTokens: 0,
  completionTokens: 0,
});

/** Adds one event to totals keyed by role and model (first appearance keeps its place). */
export function addUsageEvent(totals: Map<string, UsageEntry>, event: UsageEvent): void {
  const key = `${event.role}\u0000${event.model}`;
  let entry = totals.get(key);
  if (entry === undefined) {
    entry = emptyEntry(event.role, event.model);
    totals.set(key, entry);
  }
  if (event.event === "request") {
    entry.requests += 1;
    if (event.retry) entry.retries += 1;
  } else if (event.event === "call") {
    if (event.outcome === "answered") {
      entry.calls += 1;
      entry.promptTokens += event.promptTokens;
      entry.completionTokens += event.completionTokens;
    } else if (event.outcome === "cached") entry.cachedCalls += 1;
    else entry.failedCalls += 1;
  }
}

/**
 * Token usage per model role over every invocation on a run directory: usage.json of runs made
 * before usage.jsonl existed, then the sums of usage.jsonl. Undefined when the directory never
 * called a model. A torn last line (a kill during an append) is left out.
 */
export function readUsageTotals(dir: string): UsageEntry[] | undefined {
  const totals = new Map<string, UsageEntry>();
  const legacy = join(dir, LEGACY_USAGE_FILE);
  if (existsSync(legacy)) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(legacy, "utf8"));
    } catch (error) {
      throw new RunDirectoryError(
        `${legacy} is not valid JSON (${(error as Error).message}); move it away to count usage from ${USAGE_LOG_FILE} alone`,
      );
    }
    const parsed = z.array(UsageEntrySchema).safeParse(value);
    if (!parsed.success) throw new RunDirectoryError(`${legacy} is not a list of token counts:\n${formatIssues(parsed.error.issues)}`);
    for (const entry of parsed.data) totals.set(`${entry.role}\u0000${entry.model}`, { ...entry });
  }
  const path = join(dir, USAGE_LOG_FILE);
  if (existsSync(path)) {
    let schemaError: RunDirectoryError | undefined;
    const scan = scanJsonlFile(path, (value, line) => {
      const parsed = UsageEventSchema.safeParse(value);
      if (parsed.success) addUsageEvent(totals, parsed.data);
      else schemaError ??= new RunDirectoryError(`${path} line ${line} is not a usage event:\n${formatIssues(parsed.error.issues)}`);
    });
    const invalid = invalidLinesError(path, scan.invalid) ?? schemaError;
    if (invalid !== undefined) throw new RunDirectoryError(`${invalid.message}\n${usageRemedy(path)}`);
  }
  return totals.size === 0 ? undefined : [...totals.values()];
}

/** The remedy for a usage.jsonl that cannot be read: it only counts tokens, so setting it aside loses no result. */
function usageRemedy(path: string): string {
  return `usage.jsonl only counts model calls and tokens: move it aside (mv ${path} ${path}.bad) and run the command again; the calls it recorded are then no longer counted`;
}

/**
 * Checks usage.jsonl before a run appends to it: a bad line in the middle (an editor, a disk
 * fault) is found at start-up, with the remedy, rather than after every dialogue has run. A torn
 * last line is not an error (the appender cuts it off).
 */
export function checkUsageLog(dir: string): void {
  const path = join(dir, USAGE_LOG_FILE);
  if (!existsSync(path)) return;
  let schemaError: string | undefined;
  const scan = scanJsonlFile(path, (value, line) => {
    if (schemaError !== undefined) return;
    const parsed = UsageEventSchema.safeParse(value);
    if (!parsed.success) schemaError = `${path} line ${line} is not a usage event:\n${formatIssues(parsed.error.issues)}`;
  });
  const invalid = invalidLinesError(path, scan.invalid)?.message ?? schemaError;
  if (invalid !== undefined) throw new RunDirectoryError(`${invalid}\n${usageRemedy(path)}`);
}

/**
 * The usage log of a run directory. Events before the directory is claimed (a run's first
 * successful model call) are held in memory, so a fresh run whose preflight fails writes nothing;
 * a run that resumes its own directory opens the log at once, so a kill before its first answer
 * still leaves the requests it sent. A write that fails (a full disk) is never thrown into the
 * model call that recorded the event (it is not the model's fault): it goes to `onFailure`, which
 * stops the run.
 */
export class UsageLog implements UsageSink {
  readonly #file: JsonlAppender;
  #pending: UsageEvent[] | undefined = [];
  #failed = false;
  /** Told of the first write that failed (a {@link FileWriteError}); later events are dropped. */
  onFailure: ((error: Error) => void) | undefined;

  constructor(dir: string) {
    this.#file = new JsonlAppender(join(dir, USAGE_LOG_FILE));
  }

  record(event: UsageEvent): void {
    if (this.#pending !== undefined) this.#pending.push(event);
    else this.#write(event);
  }

  /** From now on events go to the file, starting with those held so far. */
  open(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    for (const event of pending) this.#write(event);
  }

  close(): void {
    this.#file.close();
  }

  #write(event: UsageEvent): void {
    if (this.#failed) return;
    try {
      this.#file.append(event);
    } catch (error) {
      this.#failed = true;
      this.onFailure?.(error as Error);
    }
  }
}
