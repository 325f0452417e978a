/**
 * Spreading requests over replicas of one model, with a concurrency cap per
 * replica.
 *
 * Why "fewest in-flight": replicas of an LLM server differ in speed (GPU
 * type, batch composition, prompt lengths), so round-robin would pile work on
 * a slow replica. Counting in-flight requests adapts to that for free. Ties go
 * to the replica listed first, which keeps scheduling deterministic in tests.
 *
 * Why one shared queue: when every replica is at its limit, waiting requests
 * are served first-come-first-served by whichever replica frees a slot first,
 * so a slow replica never holds a private backlog.
 *
 * `avoid` lets a retry prefer a different replica than the one that just
 * failed: a dead replica answers instantly (connection refused), so it always
 * looks least loaded and would otherwise attract every retry.
 */
/** A granted slot on one replica; call `release()` exactly once. */
export interface ReplicaLease<T> {
  readonly replica: T;
  readonly index: number;
  release(): void;
}

export interface AcquireOptions {
  /** Replica index to use only if no other replica has a free slot. */
  avoid?: number | undefined;
  signal?: AbortSignal | undefined;
}

interface Waiter {
  avoid: number | undefined;
  grant: (index: number) => void;
}

export class ReplicaPool<T> {
  readonly #replicas: readonly T[];
  readonly #limit: number;
  readonly #active: number[];
  readonly #queue: Waiter[] = [];
  readonly #onWait: ((queued: number) => void) | undefined;

  /** `onWait` is told each time a request has to wait for a slot, with the queue's length then. */
  constructor(replicas: readonly T[], maxConcurrencyPerReplica: number, options: { onWait?: (queued: number) => void } = {}) {
    if (replicas.length === 0) throw new RangeError("ReplicaPool needs at least one replica");
    if (!Number.isInteger(maxConcurrencyPerReplica) || maxConcurrencyPerReplica < 1) {
      throw new RangeError("maxConcurrencyPerReplica must be a positive integer");
    }
    this.#replicas = replicas;
    this.#limit = maxConcurrencyPerReplica;
    this.#active = replicas.map(() => 0);
    this.#onWait = options.onWait;
  }

  /** Current in-flight count per replica, in replica order. */
  inFlight(): number[] {
    return [...this.#active];
  }

  /** Requests waiting for a free slot. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Resolves with a slot on the least-loaded replica that has capacity, or
   * waits in the queue. Rejects with the signal's reason if aborted first.
   * The choice is made synchronously when a slot is free.
   */
  acquire(options: AcquireOptions = {}): Promise<ReplicaLease<T>> {
    const { avoid, signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as unknown);
    const index = this.#pick(avoid);
    if (index !== undefined && this.#queue.length === 0) {
      return Promise.resolve(this.#lease(index));
    }
    return new Promise<ReplicaLease<T>>((resolve, reject) => {
      const waiter: Waiter = {
        avoid,
        grant: (granted) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#lease(granted));
        },
      };
      const onAbort = (): void => {
        const position = this.#queue.indexOf(waiter);
        if (position >= 0) this.#queue.splice(position, 1);
        reject(signal?.reason as unknown);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
      this.#drain();
      if (this.#queue.includes(waiter)) this.#onWait?.(this.#queue.length);
    });
  }

  #pick(avoid: number | undefined): number | undefined {
    let best: number | undefined;
    let bestAvoided: number | undefined;
    for (let i = 0; i < this.#active.length; i++) {
      const load = this.#active[i] ?? 0;
      if (load >= this.#limit) continue;
      if (i === avoid && this.#active.length > 1) {
        bestAvoided = i;
        continue;
      }
      if (best === undefined || load < (this.#active[best] ?? 0)) best = i;
    }
    return best ?? bestAvoided;
  }

  #lease(index: number): ReplicaLease<T> {
    this.#active[index] = (this.#active[index] ?? 0) + 1;
    const replica = this.#replicas[index] as T;
    let released = false;
    return {
      replica,
      index,
      release: () => {
        if (released) return;
        released = true;
        this.#active[index] = (this.#active[index] ?? 1) - 1;
        this.#drain();
      },
    };
  }

  #drain(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0] as Waiter;
      const index = this.#pick(head.avoid);
      if (index === undefined) return;
      this.#queue.shift();
      head.grant(index);
    }
  }
}
