import { InvalidArgumentError } from "commander";

/** Flag parsers that reject bad values with a message naming the flag's expectation. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  // Safe integers only: above 2^53 - 1 a number is silently rounded.
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}

export function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return parsed;
}

/**
 * A seed: decimal digits, 0 to 2^53 - 1. A larger one would be rounded to another seed without a
 * word (JavaScript numbers hold integers exactly only up to 2^53 - 1), so it is refused.
 */
export function seedValue(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed)) {
    throw new InvalidArgumentError(
      `expected a seed, a whole number from 0 to ${Number.MAX_SAFE_INTEGER} (2^53 - 1; larger ones cannot be held exactly), got "${value}"`,
    );
  }
  return parsed;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return parsed;
}

/** A name shown in tables (a simulated user, a label): not empty, one line. */
export function displayName(value: string): string {
  const trimmed = value.trim();
  if (trimmed === "" || /[\r\n]/u.test(trimmed))
    throw new InvalidArgumentError(`expected a non-empty name on one line, got ${JSON.stringify(value)}`);
  return trimmed;
}
