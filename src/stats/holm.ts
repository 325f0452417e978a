/**
 * Holm step-down adjustment of p-values for multiple comparisons.
 *
 * Controls the family-wise error rate like Bonferroni but is uniformly more powerful, and
 * needs no independence assumption, so it suits AEB's handful of per-metric comparisons.
 * With p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted values are
 *
 *   p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎)
 *
 * i.e. scale by the number of hypotheses still in play, then enforce monotonicity with a
 * running maximum. Matches statsmodels `multipletests(p, method="holm")[1]`. Results come
 * back in the input order; tied p-values get equal adjusted values whatever their order.
 */
import { StatsInputError } from "./errors.js";

/** Holm-adjusted p-values, in the same order as `pValues`. */
export function holmAdjust(pValues: readonly number[]): number[] {
  if (pValues.length === 0) throw new StatsInputError("holmAdjust: no p-values given");
  pValues.forEach((p, index) => {
    if (!(typeof p === "number" && p >= 0 && p <= 1)) {
      throw new StatsInputError(`holmAdjust: p-values must lie in [0, 1], but index ${index} is ${String(p)}`);
    }
  });
  const m = pValues.length;
  const order = pValues.map((_, index) => index).sort((a, b) => (pValues[a] as number) - (pValues[b] as number));
  const adjusted = new Array<number>(m).fill(0);
  let runningMax = 0;
  order.forEach((index, rank) => {
    runningMax = Math.max(runningMax, Math.min(1, (m - rank) * (pValues[index] as number)));
    adjusted[index] = runningMax;
  });
  return adjusted;
}
