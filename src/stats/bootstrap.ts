import { createRng } from "../core/random.js";

/** Seeded percentile bootstrap of the mean (spec section 5). */
export function bootstrapMeanCI(values: readonly number[], options: { resamples?: number; confidence?: number; seed: number }): { mean: number; ci95: [number, number] } {
  if (values.length === 0) throw new Error("bootstrap of an empty sample");
  const resamples = options.resamples ?? 10_000;
  const confidence = options.confidence ?? 0.95;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const rng = createRng(options.seed);
  const means = new Float64Array(resamples);
  for (let draw = 0; draw < resamples; draw += 1) {
    let sum = 0;
    for (let index = 0; index < values.length; index += 1) sum += values[Math.floor(rng.next() * values.length)] as number;
    means[draw] = sum / values.length;
  }
  means.sort();
  const quantile = (q: number) => {
    const position = q * (resamples - 1);
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return (means[low] as number) + ((means[high] as number) - (means[low] as number)) * (position - low);
  };
  const alpha = (1 - confidence) / 2;
  return { mean, ci95: [quantile(alpha), quantile(1 - alpha)] };
}
