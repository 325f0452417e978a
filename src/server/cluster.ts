import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";
import type { DialogueRecord } from "../core/dialogue.js";
import type { RecorderHealth } from "./episode-recorder.js";

/**
 * `aeb serve --workers N`: N server processes on one port (node:cluster), one per core. Any worker
 * can serve any stateless step, as any replica can, because they share the token secret. The
 * session API keeps state in one process, so it is off in this mode. /metrics, whichever worker
 * answers it, is the sum over all workers (aggregated by the primary). With `--record`, workers send
 * their finished episodes to the primary, the one writer of the directory, and answer an episode's
 * last step only once the primary says the episode is on disk.
 */

const LISTENING = "aeb:listening";
const METRICS_REQUEST = "aeb:metrics-request";
const METRICS_RESPONSE = "aeb:metrics-response";
/** Primary to a listening worker: send your registry; the worker answers with METRICS_LOCAL. */
const METRICS_COLLECT = "aeb:metrics-collect";
const METRICS_LOCAL = "aeb:metrics-local";
/** The primary waits this long for every listening worker's registry; then /metrics fails (503, retryable). */
const METRICS_COLLECT_TIMEOUT_MS = 3000;
const RECORDED_METRIC = "aeb_env_episodes_recorded_total";
const EPISODE = "aeb:episode";
const EPISODE_WRITTEN = "aeb:episode-written";
const RECORDER_HEALTH = "aeb:recorder-health";
/** A worker waits this long for the primary to confirm an episode; then the step fails (retryable) and a retry finds the episode if it was written. */
const EPISODE_CONFIRM_TIMEOUT_MS = 30_000;
/** Set in the environment of the workers the primary forks. */
export const CLUSTER_WORKER_VARIABLE = "AEB_CLUSTER_WORKER";

type LocalMetrics = MetricObjectWithValues<MetricValue<string>>[];

interface ClusterMessage {
  type: string;
  id?: number;
  url?: string;
  text?: string;
  error?: string;
  record?: DialogueRecord;
  /** METRICS_LOCAL: the worker's registry as `getMetricsAsJSON` gives it. */
  metrics?: LocalMetrics;
  /** EPISODE_WRITTEN: written now (true) or already on disk (false); absent with `error`. */
  written?: boolean;
  /** EPISODE_WRITTEN with `error`: the errno code of the failed write (ENOSPC...), for the client's message. */
  code?: string;
  health?: RecorderHealth;
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
  /**
   * Writes each finished episode a worker sends (`--record`); resolves once it is on disk (`false`:
   * it already was), and the worker is told so, or that it failed.
   */
  onEpisode?: (record: DialogueRecord) => Promise<boolean>;
  /** The recorder's health now; workers are told it at start and at every change ({@link ClusterPrimary.recorderHealthChanged}). */
  recorderHealth?: () => RecorderHealth;
  /**
   * Episodes the primary's recorder wrote since it started: /metrics shows this as
   * aeb_env_episodes_recorded_total instead of the workers' sum, which fell when a worker was replaced.
   */
  recordedEpisodes?: () => number;
}

/** What the primary's caller can do while it runs. */
export interface ClusterPrimary {
  /** Resolves when all workers have exited after a shutdown signal (see {@link runClusterPrimary}). */
  stopped: Promise<ClusterStopped>;
  /** Tells every worker the recorder's health (their /healthz shows it). */
  recorderHealthChanged(health: RecorderHealth): void;
}

/** How the workers ended after a shutdown signal: clean when every one exited 0 (nothing cut by the timeout). */
export interface ClusterStopped {
  clean: boolean;
}

/**
 * Runs the primary: forks the workers, reports when all listen, restarts a worker that dies, answers
 * the workers' metrics requests and episodes, and on SIGINT/SIGTERM asks every worker to finish its
 * in-flight steps and exit (the primary writes their episodes until the last has exited). `stopped`
 * resolves when all workers have exited after a shutdown signal (unclean when one exited non-zero:
 * its shutdown timeout cut requests, or it was killed); rejects if a worker exits before every
 * worker listens (a port in use, a bad flag).
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): ClusterPrimary {
  const listening = new Set<number>();
  const collections = new Map<number, { waiting: Set<number>; received: LocalMetrics[]; settle: (error?: Error) => void }>();
  let collectionIds = 0;
  /**
   * The sum over the workers that listen (a worker being started is not asked: it could not answer
   * yet, and prom-client's own collection, which asked every forked worker, failed /metrics for 5 s
   * after each restart). A worker that exits meanwhile is left out.
   */
  const clusterMetrics = () =>
    new Promise<string>((resolve, reject) => {
      const id = collectionIds++;
      const targets = [...listening]
        .map((workerId) => cluster.workers?.[workerId])
        .filter((worker): worker is Worker => worker !== undefined && worker.isConnected());
      const collection = {
        waiting: new Set(targets.map((worker) => worker.id)),
        received: [] as LocalMetrics[],
        settle: (error?: Error) => {
          if (!collections.delete(id)) return;
          clearTimeout(timer);
          if (error !== undefined) return reject(error);
          const recorded = options.recordedEpisodes;
          const perWorker =
            recorded === undefined
              ? collection.received
              : collection.received.map((metrics) => metrics.filter((metric) => metric.name !== RECORDED_METRIC));
          const primaryMetrics: LocalMetrics = [];
          const template = collection.received.flat().find((metric) => metric.name === RECORDED_METRIC);
          if (recorded !== undefined && template !== undefined)
            primaryMetrics.push({ ...template, values: [{ value: recorded(), labels: {} }] });
          AggregatorRegistry.aggregate([...perWorker, primaryMetrics])
            .metrics()
            .then(resolve, reject);
        },
      };
      const timer = setTimeout(
        () =>
          collection.settle(
            new Error(`${collection.waiting.size} worker(s) did not send their metrics within ${METRICS_COLLECT_TIMEOUT_MS / 1000} s`),
          ),
        METRICS_COLLECT_TIMEOUT_MS,
      );
      collections.set(id, collection);
      for (const worker of targets) tell(worker, { type: METRICS_COLLECT, id });
      if (collection.waiting.size === 0) collection.settle();
    });
  const leftCollections = (workerId: number) => {
    for (const collection of [...collections.values()])
      if (collection.waiting.delete(workerId) && collection.waiting.size === 0) collection.settle();
  };
  let ready = false;
  let stopping = false;
  let clean = true;

  const fork = (): Worker => cluster.fork({ ...options.env, [CLUSTER_WORKER_VARIABLE]: "1" });

  const tell = (worker: Worker, message: ClusterMessage) => {
    // A worker that died meanwhile cannot be told; its client's connection is gone too.
    if (worker.isConnected()) worker.send(message, undefined, () => undefined);
  };
  const stopped = new Promise<ClusterStopped>((resolve, reject) => {
    const onMessage = (worker: Worker, message: ClusterMessage) => {
      if (message?.type === EPISODE && message.record !== undefined && message.id !== undefined) {
        const id = message.id;
        const write = options.onEpisode ?? (() => Promise.reject(new Error("this server does not record episodes")));
        write(message.record).then(
          (written) => tell(worker, { type: EPISODE_WRITTEN, id, written }),
          (error: unknown) => {
            const code = (error as { code?: unknown }).code;
            tell(worker, { type: EPISODE_WRITTEN, id, error: (error as Error).message, ...(typeof code === "string" ? { code } : {}) });
          },
        );
      } else if (message?.type === LISTENING && typeof message.url === "string") {
        // Told now, not when the worker comes online: a message sent before its listener exists is lost.
        const health = options.recorderHealth?.();
        if (health !== undefined && health.state !== "ok") tell(worker, { type: RECORDER_HEALTH, health });
        listening.add(worker.id);
        if (ready) options.log(`worker ${worker.process.pid} listens (it replaces one that exited)`);
        if (!ready && listening.size >= options.workers) {
          ready = true;
          options.onListening(message.url);
        }
      } else if (message?.type === METRICS_LOCAL && message.id !== undefined && message.metrics !== undefined) {
        const collection = collections.get(message.id);
        if (collection !== undefined && collection.waiting.delete(worker.id)) {
          collection.received.push(message.metrics);
          if (collection.waiting.size === 0) collection.settle();
        }
      } else if (message?.type === METRICS_REQUEST) {
        clusterMetrics().then(
          (text) => worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
          (error: unknown) => worker.send({ type: METRICS_RESPONSE, id: message.id, error: (error as Error).message }),
        );
      }
    };
    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      const wasListening = listening.delete(worker.id);
      leftCollections(worker.id);
      if (stopping) {
        // A worker still starting had no request to finish: the signal ended nothing.
        const cutNothing = !wasListening && signal === "SIGTERM";
        if ((code !== 0 || signal !== null) && !cutNothing) {
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
  return {
    stopped,
    recorderHealthChanged(health) {
      for (const worker of Object.values(cluster.workers ?? {})) if (worker !== undefined) tell(worker, { type: RECORDER_HEALTH, health });
    },
  };
}

/** In a worker: tells the primary this worker listens. */
export function announceListening(url: string): void {
  process.send?.({ type: LISTENING, url });
}

/** Episodes sent to the primary and not yet confirmed, by message id. */
const episodesAwaitingPrimary = new Map<
  number,
  { resolve: (written: boolean) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
>();
let episodeMessages = 0;
let primaryRecorderHealth: RecorderHealth = { state: "ok" };
let listeningToPrimary = false;

/**
 * In a worker: starts listening to the primary. Call it when the worker starts: a message that
 * comes before a listener is dropped, so a worker that listened only once it sent its first
 * episode missed the recorder's health the primary told it (and showed "ok" on /healthz while
 * the other worker showed "failing").
 */
export function listenToPrimary(): void {
  if (listeningToPrimary) return;
  listeningToPrimary = true;
  process.on("message", (message: ClusterMessage) => {
    if (message?.type === RECORDER_HEALTH && message.health !== undefined) primaryRecorderHealth = message.health;
    if (message?.type !== EPISODE_WRITTEN || message.id === undefined) return;
    const waiting = episodesAwaitingPrimary.get(message.id);
    if (waiting === undefined) return;
    episodesAwaitingPrimary.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error !== undefined)
      waiting.reject(Object.assign(new Error(message.error), message.code !== undefined ? { code: message.code } : {}));
    else waiting.resolve(message.written !== false);
  });
  process.once("disconnect", () => {
    for (const [id, waiting] of episodesAwaitingPrimary) {
      episodesAwaitingPrimary.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new Error("the cluster's primary, which writes the recording, went away"));
    }
  });
}

/**
 * In a worker: sends a finished episode to the primary, which writes the `--record` directory, and
 * resolves once the primary says it is on disk (`false`: it already was). Rejects when the primary
 * reports a failed write, goes away, or does not answer in time: the step is then not acknowledged,
 * and its retry is written once.
 */
export function sendEpisodeToPrimary(record: DialogueRecord): Promise<boolean> {
  listenToPrimary();
  const id = episodeMessages++;
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => {
      episodesAwaitingPrimary.delete(id);
      reject(new Error(`the cluster's primary did not confirm the episode within ${EPISODE_CONFIRM_TIMEOUT_MS / 1000} s`));
    }, EPISODE_CONFIRM_TIMEOUT_MS);
    episodesAwaitingPrimary.set(id, { resolve, reject, timer });
    const sent = process.send?.({ type: EPISODE, id, record } satisfies ClusterMessage, undefined, undefined, (error) => {
      if (error === null) return;
      episodesAwaitingPrimary.delete(id);
      clearTimeout(timer);
      reject(error);
    });
    if (sent === undefined) {
      episodesAwaitingPrimary.delete(id);
      clearTimeout(timer);
      reject(new Error("this worker has no channel to the cluster's primary"));
    }
  });
}

/** In a worker: the health of the primary's recorder, as the primary last told it. */
export function primaryRecorderHealthNow(): RecorderHealth {
  listenToPrimary();
  return primaryRecorderHealth;
}

/**
 * In a worker, once its server has closed: leaves the cluster so the process can exit with its own
 * exit code (a plain `process.disconnect()` makes Node's cluster code exit 0 at once, which hid a
 * shutdown that cut requests).
 */
export function leaveCluster(): void {
  if (cluster.worker !== undefined) cluster.worker.disconnect();
  else process.disconnect?.();
}

/**
 * In a worker: lets the primary collect this worker's registry, and returns the source of /metrics
 * (the primary's aggregate over all workers).
 */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  let counter = 0;
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  process.on("message", (message: ClusterMessage) => {
    if (message?.type === METRICS_COLLECT && message.id !== undefined) {
      const id = message.id;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: METRICS_LOCAL, id, metrics } satisfies ClusterMessage, undefined, undefined, () => undefined),
        () => undefined,
      );
      return;
    }
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
