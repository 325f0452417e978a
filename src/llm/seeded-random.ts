/**
 * Small seeded random generators for the mock server.
 *
 * Why seeded: latency distributions and probabilistic fault injection are
 * used in benchmarks of the runner itself; two runs with the same seed must
 * see the same sequence so that a regression is a code change, not luck.
 */
import type { RandomFn } from "./clock.js";

/** mulberry32: tiny, fast, good enough for simulation (not for cryptography). */
export function createSeededRandom(seed: number): RandomFn {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
