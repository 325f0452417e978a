import { InvalidArgumentError } from "commander";

/** Flag parsers that reject bad values with a message naming the flag's expectation. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}

export function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return parsed;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return parsed;
}
