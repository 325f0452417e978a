/**
 * Small seeded random generators for the mock server.
 *
 * Why seeded: latency distributions and probabilistic fault injection are
 * used in benchmarks of the runner itself; two runs with the same seed must
 * see the same sequence so that a regression is a code change, not luck.
 */
import { createRng } from "../core/random.js";
import type { RandomFn } from "../llm/clock.js";

/** AEB's one seeded generator (core/random.ts, mulberry32) as a plain `() => number`. */
export function createSeededRandom(seed: number): RandomFn {
  const rng = createRng(seed);
  return () => rng.next();
}

/** Standard normal draw (Box-Muller) from a uniform source. */
export function normalDraw(random: RandomFn): number {
  const u1 = Math.max(random(), Number.MIN_VALUE);
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * Sampler of a log-normal distribution given its median and the sigma of the
 * underlying normal: median * exp(sigma * Z). Median (not mean) because it is
 * what people read off latency dashboards.
 */
export function logNormalSampler(medianMs: number, sigma: number, random: RandomFn): () => number {
  return () => medianMs * Math.exp(sigma * normalDraw(random));
}
