import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { StageTiming } from "../episode/dialogue-error.js";

/** Which API a step came through. */
export type StepApi = "stateless" | "session" | "batch";

const SIMULATOR_STAGE_LABELS: Partial<Record<StageTiming["stage"], string>> = { appraisal: "appraise", user_reply: "reply" };
const STATUS_CLASSES = ["0xx", "1xx", "2xx", "3xx", "4xx", "5xx"];
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const REWARD_BUCKETS = [-0.3, -0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1];

/**
 * Prometheus metrics of one server, in its own registry (so several servers in one process, as in
 * tests, do not collide). Served at `/metrics`.
 */
export class EnvironmentMetrics {
  readonly registry = new Registry();
  private readonly resets: Counter<"preset">;
  private readonly steps: Counter<"api" | "outcome">;
  private readonly stepDuration: Histogram<"api">;
  private readonly rewards: Histogram<"reward_mode">;
  private readonly episodesEnded: Counter<"end_reason">;
  private readonly flags: Counter<"flag">;
  private readonly errors: Counter<"code" | "status">;
  private readonly simulatorCalls: Counter<"stage" | "outcome">;
  private readonly simulatorDuration: Histogram<"stage">;
  private readonly inFlight: Gauge;
  private readonly httpDuration: Histogram<"route" | "method" | "status">;
  private readonly recorded: Counter;
  private readonly simulatorQueued: Counter;
  private readonly children = new Map<object, Map<string, unknown>>();

  constructor(options: { sessions?: () => number; sessionBytes?: () => number; defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: "aeb_" });
    this.resets = new Counter({
      name: "aeb_env_resets_total",
      help: "Episodes started (reset or session create).",
      labelNames: ["preset"],
      registers,
    });
    this.steps = new Counter({
      name: "aeb_env_steps_total",
      help: "Steps answered, by API and outcome (ok or the error code).",
      labelNames: ["api", "outcome"],
      registers,
    });
    this.stepDuration = new Histogram({
      name: "aeb_env_step_duration_seconds",
      help: "Time to play one step (simulated user included), by API.",
      labelNames: ["api"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rewards = new Histogram({
      name: "aeb_env_step_reward",
      help: "Reward of each step, by reward mode.",
      labelNames: ["reward_mode"],
      buckets: REWARD_BUCKETS,
      registers,
    });
    this.episodesEnded = new Counter({
      name: "aeb_env_episodes_ended_total",
      help: "Episodes that ended, by end reason.",
      labelNames: ["end_reason"],
      registers,
    });
    this.flags = new Counter({
      name: "aeb_env_flags_total",
      help: "Flags raised on agent replies (injection, formulaic, repetition...).",
      labelNames: ["flag"],
      registers,
    });
    this.errors = new Counter({
      name: "aeb_env_errors_total",
      help: "Error responses, by code and HTTP status.",
      labelNames: ["code", "status"],
      registers,
    });
    this.simulatorCalls = new Counter({
      name: "aeb_env_simulator_calls_total",
      help: "Calls to the simulated user (model calls for an LLM user), by stage and outcome.",
      labelNames: ["stage", "outcome"],
      registers,
    });
    this.simulatorDuration = new Histogram({
      name: "aeb_env_simulator_call_duration_seconds",
      help: "Duration of calls to the simulated user, by stage.",
      labelNames: ["stage"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.httpDuration = new Histogram({
      name: "aeb_http_request_duration_seconds",
      help: "Time from receiving a request to sending its response (parsing, validation and the step included), by route, method and status class.",
      labelNames: ["route", "method", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.inFlight = new Gauge({ name: "aeb_env_steps_in_flight", help: "Steps being played right now.", registers });
    this.simulatorQueued = new Counter({
      name: "aeb_env_simulator_calls_queued_total",
      help: "Model calls of the simulated user that waited for a free slot under the simulator endpoint's maxConcurrencyPerEndpoint (steps held by the client's cap, not by the model server).",
      registers,
    });
    this.recorded = new Counter({
      name: "aeb_env_episodes_recorded_total",
      help: "Finished episodes written to the --record directory and flushed to disk (a retried last step whose episode was already written is not counted again).",
      registers,
    });
    const sessionBytes = options.sessionBytes;
    if (sessionBytes !== undefined) {
      new Gauge({
        name: "aeb_env_session_memory_bytes",
        help: "Estimated memory held by the open sessions (what --session-memory bounds).",
        registers,
        collect() {
          this.set(sessionBytes());
        },
      });
    }
    const sessions = options.sessions;
    if (sessions !== undefined) {
      new Gauge({
        name: "aeb_env_sessions",
        help: "Open sessions of the session API.",
        registers,
        collect() {
          this.set(sessions());
        },
      });
    }
  }

  /** A model call of the simulated user waited for a slot under its endpoint's cap. */
  countSimulatorCallQueued(): void {
    this.simulatorQueued.inc();
  }

  countReset(preset: string): void {
    this.resets.inc({ preset });
  }

  stepStarted(): void {
    this.inFlight.inc();
  }

  stepFinished(api: StepApi, seconds: number, outcome: string): void {
    this.inFlight.dec();
    this.observeStep(api, seconds, outcome);
  }

  /** A step answered (`ok`, `replayed`, or the error code), without the in-flight gauge (steps played in the step pool's threads). */
  observeStep(api: StepApi, seconds: number, outcome: string): void {
    this.child(this.steps, api, outcome).inc();
    if (outcome === "ok") this.child(this.stepDuration, api).observe(seconds);
  }

  observeResult(result: { reward: number; rewardMode: string; flags: readonly string[]; endReason: string | null }): void {
    this.child(this.rewards, result.rewardMode).observe(result.reward);
    for (const flag of result.flags) this.child(this.flags, flag).inc();
    if (result.endReason !== null) this.child(this.episodesEnded, result.endReason).inc();
  }

  countRecorded(): void {
    this.recorded.inc();
  }

  countError(code: string, status: number): void {
    this.errors.inc({ code, status: String(status) });
  }

  observeRequest(route: string, method: string, statusCode: number, seconds: number): void {
    this.child(
      this.httpDuration,
      route,
      method,
      STATUS_CLASSES[Math.floor(statusCode / 100)] ?? `${Math.floor(statusCode / 100)}xx`,
    ).observe(seconds);
  }

  /**
   * A call of the simulated user during a step (the episode's `onStage`), under the stage labels the
   * metrics have always had (`appraise`, `reply`). The opening, written once per reset when a
   * scenario has none, is not a step's call and is not counted.
   */
  observeSimulatorCall({ stage, ok, seconds }: StageTiming): void {
    const label = SIMULATOR_STAGE_LABELS[stage];
    if (label === undefined) return;
    this.child(this.simulatorCalls, label, ok ? "ok" : "error").inc();
    this.child(this.simulatorDuration, label).observe(seconds);
  }

  /**
   * The child of a labelled metric for these label values (in the order of its labelNames), made
   * once: observing through a label object hashes the object on every call, on the hot path.
   */
  private child<T extends { labels(...values: string[]): unknown }>(metric: T, ...values: string[]): ReturnType<T["labels"]> {
    let children = this.children.get(metric);
    if (children === undefined) this.children.set(metric, (children = new Map()));
    const key = values.join("\u0000");
    let found = children.get(key);
    if (found === undefined) children.set(key, (found = metric.labels(...values)));
    return found as ReturnType<T["labels"]>;
  }
}
