/**
 * Input checks shared by every test in the module.
 *
 * SciPy propagates NaN or returns NaN for empty input; AEB instead fails loudly, because a NaN
 * p-value that reaches a report is far harder to trace than an error naming the bad argument.
 * Each message starts with the function and argument name so the caller can see what to fix.
 */
import { StatsInputError } from "./errors.js";

/** Throws unless `values` is a non-empty array of finite numbers. */
export function requireFiniteSample(values: readonly number[], label: string): void {
  if (values.length === 0) {
    throw new StatsInputError(`${label} is empty: at least one value is needed`);
  }
  values.forEach((value, index) => {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new StatsInputError(`${label} must contain only finite numbers, but index ${index} is ${String(value)}`);
    }
  });
}

/** Throws unless two paired arrays have the same length. */
export function requireSameLength(a: readonly unknown[], b: readonly unknown[], labelA: string, labelB: string): void {
  if (a.length !== b.length) {
    throw new StatsInputError(`${labelA} and ${labelB} must have the same length (paired values), but have ${a.length} and ${b.length}`);
  }
}

/** Throws unless `value` is an integer no smaller than `minimum`. */
export function requireInteger(value: number, label: string, minimum: number): void {
  if (!Number.isInteger(value) || value < minimum) {
    throw new StatsInputError(`${label} must be an integer >= ${minimum}, but is ${String(value)}`);
  }
}

/** Throws unless `value` lies strictly between 0 and 1 (confidence levels, probabilities). */
export function requireOpenUnitInterval(value: number, label: string): void {
  if (!(typeof value === "number" && value > 0 && value < 1)) {
    throw new StatsInputError(`${label} must be strictly between 0 and 1, but is ${String(value)}`);
  }
}
