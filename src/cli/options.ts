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

/** A name shown in tables (a simulated user, a label): not empty, one line. */
export function displayName(value: string): string {
  const trimmed = value.trim();
  if (trimmed === "" || /[\r\n]/u.test(trimmed)) throw new InvalidArgumentError(`expected a non-empty name on one line, got ${JSON.stringify(value)}`);
  return trimmed;
}
