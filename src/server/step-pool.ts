import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { EnvironmentError } from "./environment-error.js";
import type { BatchReply, PoolRequest, StepPoolInit, StepStat } from "./step-pool-protocol.js";

/**
 * Worker threads that play `/v1/step/batch` requests off the main event loop.
 *
 * Why threads: the offline simulated user is pure CPU (lexicon matching, the detectors), so a batch
 * of 256 long replies played on the event loop blocked every other request, `/healthz` included,
 * for as long as it ran. A thread keeps the event loop free for health checks and single steps and
 * uses another core; threads start in milliseconds and share the process (one port, one set of
 * metrics), which child processes would not. The raw body is handed over without being parsed
 * (transferred, not copied): the thread parses and validates it, plays its steps, and returns the
 * response body ready to send, so the main thread does no work proportional to the batch. An LLM
 * simulated user waits on I/O, not CPU, so its batches stay on the event loop (see app.ts).
 *
 * A batch goes whole to the thread with the fewest batches in hand; a thread that dies fails its
 * batches (500) and is replaced.
 */
export interface StepPoolOptions {
  threads: number;
  init: StepPoolInit;
  /** The thread's entry module and its Node options; default the built `step-worker.js` beside this file. */
  worker?: { url: URL; execArgv?: string[] };
  /** Where a dead thread or an internal error is reported. */
  log?: (message: string) => void;
}

/** What a played batch gives the route: the body to send and the per-step stats. */
export interface PlayedBatch {
  body: string;
  stats: StepStat[];
}

interface Pending {
  resolve: (batch: PlayedBatch) => void;
  reject: (error: Error) => void;
  thread: PoolThread;
}

interface PoolThread {
  worker: Worker;
  ready: Promise<void>;
  pending: Set<number>;
}

/** The compiled worker beside this module; running from the TypeScript sources needs a loader (tests pass one). */
function defaultWorker(): { url: URL; execArgv?: string[] } {
  const url = new URL("./step-worker.js", import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(`the step pool's worker ${fileURLToPath(url)} is not built (run npm run build), or pass StepPoolOptions.worker`);
  }
  return { url };
}

export class StepPool {
  private readonly threads: PoolThread[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly worker: { url: URL; execArgv?: string[] };
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: StepPoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1)
      throw new Error(`a step pool needs at least one thread, got ${options.threads}`);
    this.worker = options.worker ?? defaultWorker();
    for (let index = 0; index < options.threads; index += 1) this.threads.push(this.spawn());
  }

  get size(): number {
    return this.threads.length;
  }

  /** Resolves once every thread has built its environment. */
  async ready(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.ready));
  }

  /**
   * Plays a batch from its raw JSON body. Rejects with an EnvironmentError when the request as a
   * whole is bad (not JSON, no `steps`, too many) or the thread died; each step's own failure is a
   * result in the body. An aborted signal cancels the steps not yet played.
   */
  run(body: Uint8Array, signal?: AbortSignal): Promise<PlayedBatch> {
    if (this.closed)
      return Promise.reject(
        new EnvironmentError(503, "shutting_down", "this server is shutting down; send the request to another replica or retry", {
          retryable: true,
          retryAfterSeconds: 1,
        }),
      );
    const thread = this.threads.reduce((least, candidate) => (candidate.pending.size < least.pending.size ? candidate : least));
    const id = this.nextId++;
    // Transferred, not copied; a body that shares its memory (a pooled small buffer) is copied first,
    // so the transfer cannot detach memory other requests use.
    const ownsItsMemory = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
    const own = ownsItsMemory ? body : new Uint8Array(body);
    return new Promise<PlayedBatch>((resolve, reject) => {
      const onAbort = () => {
        if (this.pending.has(id)) thread.worker.postMessage({ type: "cancel", id } satisfies PoolRequest);
      };
      const settled = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        thread,
        resolve: (batch) => {
          settled();
          resolve(batch);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      });
      thread.pending.add(id);
      signal?.addEventListener("abort", onAbort, { once: true });
      thread.worker.postMessage({ type: "batch", id, body: own } satisfies PoolRequest, [own.buffer as ArrayBuffer]);
    });
  }

  /** Stops the threads; batches still in hand fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    this.failAll(this.threads, "the server closed while the batch was being played");
  }

  private spawn(): PoolThread {
    const worker = new Worker(this.worker.url, { workerData: this.options.init, execArgv: this.worker.execArgv ?? [] });
    let markReady: () => void = () => undefined;
    let markFailed: (error: Error) => void = () => undefined;
    const thread: PoolThread = {
      worker,
      pending: new Set(),
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        markFailed = reject;
      }),
    };
    // Nobody may wait for readiness; a failed start is reported by the exit handler.
    thread.ready.catch(() => undefined);
    worker.on("message", (message: BatchReply | { ready: true }) => {
      if ("ready" in message) {
        markReady();
        return;
      }
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      thread.pending.delete(message.id);
      if ("body" in message) waiting.resolve({ body: message.body, stats: message.stats });
      else if ("requestError" in message) {
        const { status, body, retryAfterSeconds } = message.requestError;
        waiting.reject(
          new EnvironmentError(status, body.code, body.error, {
            retryable: body.retryable,
            ...(body.issues !== undefined ? { issues: body.issues } : {}),
            ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
          }),
        );
      } else {
        this.options.log?.(`step pool: a batch failed inside its thread: ${message.crash}`);
        waiting.reject(new EnvironmentError(500, "internal", "internal error while playing the batch"));
      }
    });
    worker.on("error", (error) => {
      this.options.log?.(`step pool: a thread failed: ${error.stack ?? error.message}`);
      markFailed(error);
    });
    let started = false;
    void thread.ready.then(() => (started = true));
    worker.on("exit", (code) => {
      if (this.closed) return;
      this.failAll([thread], "the thread playing the batch stopped");
      // A thread that never started would fail again at once: ready() reports it instead of a restart loop.
      if (!started) {
        markFailed(new Error(`a step pool thread exited (code ${code}) before it was ready`));
        return;
      }
      this.options.log?.(`step pool: a thread exited (code ${code}); starting a new one`);
      const index = this.threads.indexOf(thread);
      if (index !== -1) this.threads[index] = this.spawn();
    });
    return thread;
  }

  private failAll(threads: readonly PoolThread[], why: string): void {
    for (const thread of threads) {
      for (const id of thread.pending) {
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        waiting?.reject(new EnvironmentError(500, "internal", "internal error while playing the batch", { cause: new Error(why) }));
      }
      thread.pending.clear();
    }
  }
}
