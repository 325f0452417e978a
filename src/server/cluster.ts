import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";
import type { DialogueRecord } from "../core/dialogue.js";

/**
 * `aeb serve --workers N`: N server processes on one port (node:cluster), one per core. Any worker
 * can serve any stateless step, as any replica can, because they share the token secret. The
 * session API keeps state in one process, so it is off in this mode. /metrics, whichever worker
 * answers it, is the sum over all workers (aggregated by the primary). With `--record`, workers send
 * their finished episodes to the primary, the one writer of the directory.
 */

const LISTENING = "aeb:listening";
const METRICS_REQUEST = "aeb:metrics-request";
const METRICS_RESPONSE = "aeb:metrics-response";
const EPISODE = "aeb:episode";
/** Set in the environment of the workers the primary forks. */
export const CLUSTER_WORKER_VARIABLE = "AEB_CLUSTER_WORKER";

interface ClusterMessage {
  type: string;
  id?: number;
  url?: string;
  text?: string;
  error?: string;
  record?: DialogueRecord;
}

export function isClusterWorker(): boolean {
  return cluster.isWorker && process.env[CLUSTER_WORKER_VARIABLE] === "1";
}

export interface ClusterPrimaryOptions {
  workers: number;
  /** Extra environment of every worker (the shared token secret). */
  env: Record<string, string>;
  /** After a shutdown signal, workers that have not exited within this time are killed. */
  shutdownTimeoutMs: number;
  log: (line: string) => void;
  /** Called once, when every worker listens. */
  onListening: (url: string) => void;
  /** Called with each finished episode a worker sends (`--record`). */
  onEpisode?: (record: DialogueRecord) => void;
}

/** How the workers ended after a shutdown signal: clean when every one exited 0 (nothing cut by the timeout). */
export interface ClusterStopped {
  clean: boolean;
}

/**
 * Runs the primary: forks the workers, reports when all listen, restarts a worker that dies, answers
 * the workers' metrics requests and episodes, and on SIGINT/SIGTERM asks every worker to finish its
 * in-flight steps and exit. Resolves when all workers have exited after a shutdown signal (unclean
 * when one exited non-zero: its shutdown timeout cut requests, or it was killed); rejects if a worker
 * exits before every worker listens (a port in use, a bad flag).
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): Promise<ClusterStopped> {
  const aggregator = new AggregatorRegistry();
  const listening = new Set<number>();
  let ready = false;
  let stopping = false;
  let clean = true;

  const fork = (): Worker => cluster.fork({ ...options.env, [CLUSTER_WORKER_VARIABLE]: "1" });

  return new Promise<ClusterStopped>((resolve, reject) => {
    const onMessage = (worker: Worker, message: ClusterMessage) => {
      if (message?.type === EPISODE && message.record !== undefined) {
        options.onEpisode?.(message.record);
      } else if (message?.type === LISTENING && typeof message.url === "string") {
        listening.add(worker.id);
        if (!ready && listening.size >= options.workers) {
          ready = true;
          options.onListening(message.url);
        }
      } else if (message?.type === METRICS_REQUEST) {
        aggregator.clusterMetrics().then(
          (text) => worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
          (error: unknown) => worker.send({ type: METRICS_RESPONSE, id: message.id, error: (error as Error).message }),
        );
      }
    };
    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      listening.delete(worker.id);
      if (stopping) {
        if (code !== 0 || signal !== null) {
          clean = false;
          options.log(`worker ${worker.process.pid} stopped with ${signal ?? `exit code ${code}`}`);
        }
        if (Object.keys(cluster.workers ?? {}).length === 0) finish();
        return;
      }
      if (!ready) {
        stopAll();
        cleanup();
        reject(new Error(`a worker exited (${signal ?? code}) before the server was listening; see the messages above`));
        return;
      }
      options.log(`worker ${worker.process.pid} exited (${signal ?? code}); starting a new one`);
      fork();
    };
    const stopAll = () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    };
    let killTimer: NodeJS.Timeout | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      options.log(`${signal}: asking ${Object.keys(cluster.workers ?? {}).length} worker(s) to finish their in-flight steps`);
      stopAll();
      killTimer = setTimeout(() => {
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
      }, options.shutdownTimeoutMs + 5000);
      killTimer.unref();
      if (Object.keys(cluster.workers ?? {}).length === 0) finish();
    };
    const cleanup = () => {
      cluster.off("message", onMessage);
      cluster.off("exit", onExit);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (killTimer !== undefined) clearTimeout(killTimer);
    };
    const finish = () => {
      cleanup();
      resolve({ clean });
    };

    cluster.on("message", onMessage);
    cluster.on("exit", onExit);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    for (let index = 0; index < options.workers; index += 1) fork();
  });
}

/** In a worker: tells the primary this worker listens. */
export function announceListening(url: string): void {
  process.send?.({ type: LISTENING, url });
}

let episodesInTransit = 0;
const episodesSent: Array<() => void> = [];

/** In a worker: sends a finished episode to the primary, which writes the `--record` directory. */
export function sendEpisodeToPrimary(record: DialogueRecord): void {
  episodesInTransit += 1;
  process.send?.({ type: EPISODE, record } satisfies ClusterMessage, undefined, undefined, () => {
    episodesInTransit -= 1;
    if (episodesInTransit === 0) for (const resolve of episodesSent.splice(0)) resolve();
  });
}

/** In a worker: resolves once every episode sent so far has left for the primary (before disconnecting). */
export function episodesDelivered(): Promise<void> {
  if (episodesInTransit === 0) return Promise.resolve();
  return new Promise((resolve) => episodesSent.push(resolve));
}

/**
 * In a worker: lets the primary collect this worker's registry, and returns the source of /metrics
 * (the primary's aggregate over all workers).
 */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  new AggregatorRegistry(); // registers this worker's answer to the primary's collection requests
  AggregatorRegistry.setRegistries([registry]);
  let counter = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  process.on("message", (message: ClusterMessage) => {
    if (message?.type !== METRICS_RESPONSE || message.id === undefined) return;
    const waiting = pending.get(message.id);
    if (waiting === undefined) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error !== undefined) waiting.reject(new Error(message.error));
    else waiting.resolve(message.text ?? "");
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = counter++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("the cluster primary did not answer the metrics request"));
      }, 5000);
      pending.set(id, { resolve, reject, timer });
      process.send?.({ type: METRICS_REQUEST, id });
    });
}
