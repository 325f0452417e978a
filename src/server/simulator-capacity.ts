/**
 * How many model calls at once an environment server lets its LLM simulated user make.
 *
 * A step in flight holds one call of the simulated user at a time (its stages run one after the
 * other), so a server needs as many free slots on the simulator's endpoint as it has steps in
 * flight; each further step waits in the client's queue while the model server may sit idle. The
 * model client's own default cap (16 per replica) is right for a run, whose concurrency is in the
 * same config, and wrong for a server: with 64 steps in flight against a 1 s model, a server capped
 * at 16 reached a quarter of the throughput it could have. So where the config sets no cap, the
 * server derives it from the steps it expects in flight (`aeb serve --steps-in-flight`, by default
 * `--max-batch`), shared over the endpoint's replicas; where the config sets one, it is kept, and a
 * cap below the expected steps is warned about at start (and counted, while serving, in
 * `aeb_env_simulator_calls_queued_total`).
 *
 * Each worker process gets the whole figure, not a share of it: node:cluster deals out
 * connections, not steps, so one worker may hold more than its share of the steps in flight at a
 * moment (measured: with N / workers per worker, 256 steps in flight over 2 workers had 208-625
 * calls wait on the cap in 20 s). The calls of all workers together still never exceed the steps
 * in flight, since each step holds one call.
 */
/**
 * What the cap is read from and written to: a simulator config (the run config's `simulator`), of
 * which only an LLM user's replicas and cap matter here. Structural, so the server does not depend
 * on the runner's config module.
 */
export type CappableSimulator =
  { kind: "offline" } | { kind: "llm"; endpoint: { baseUrls: readonly string[]; maxConcurrencyPerEndpoint?: number | undefined } };

export interface SimulatorCapacity<Simulator extends CappableSimulator> {
  /** The simulator config to build the user from: the cap filled in where it was derived. */
  simulator: Simulator;
  /** Model calls in flight allowed per replica in each server process (null: offline user). */
  capPerEndpoint: number | null;
  /** True when the cap was derived here, false when the config set it. */
  derived: boolean;
  /** What to tell the operator at start, when the configured cap holds steps back. */
  warning?: string;
}

/**
 * The simulator config with its per-endpoint cap set for `stepsInFlight` steps at once in a server
 * of `workers` processes (each may hold all of them). An offline user is returned as it is.
 */
export function simulatorCapacity<Simulator extends CappableSimulator>(
  simulator: Simulator,
  stepsInFlight: number,
  workers: number,
): SimulatorCapacity<Simulator> {
  if (!Number.isInteger(stepsInFlight) || stepsInFlight < 1)
    throw new RangeError(`steps in flight must be a positive integer, got ${stepsInFlight}`);
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
  const llm: CappableSimulator = simulator;
  if (llm.kind !== "llm") return { simulator, capPerEndpoint: null, derived: false };
  const replicas = llm.endpoint.baseUrls.length;
  const needed = Math.ceil(stepsInFlight / replicas);
  const configured = llm.endpoint.maxConcurrencyPerEndpoint;
  if (configured === undefined) {
    // The same config with one field set: still a Simulator, which TypeScript cannot follow through the spread.
    const capped = { ...simulator, endpoint: { ...llm.endpoint, maxConcurrencyPerEndpoint: needed } } as Simulator;
    return { simulator: capped, capPerEndpoint: needed, derived: true };
  }
  const capacity = configured * replicas;
  return {
    simulator,
    capPerEndpoint: configured,
    derived: false,
    ...(capacity < stepsInFlight
      ? {
          warning:
            `the simulator's maxConcurrencyPerEndpoint (${configured} per replica, ${replicas} replica${replicas === 1 ? "" : "s"}: ${capacity} calls at once${workers > 1 ? " in each of the " + workers + " worker processes, any of which may hold all the steps" : ""}) is below the ${stepsInFlight} steps expected in flight (--steps-in-flight): ` +
            `the rest wait in the client's queue (counted in aeb_env_simulator_calls_queued_total); raise it to ${needed}, or leave it unset and the server derives it`,
        }
      : {}),
  };
}
