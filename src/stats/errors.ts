/**
 * The one error type the statistics module throws for bad input.
 *
 * Callers (report builders, the CLI) can tell "the data cannot be tested this way" apart
 * from programming errors with `instanceof StatsInputError` or `error.name === "StatsInputError"`
 * (the name survives serialisation across worker processes, where `instanceof` does not).
 */
export class StatsInputError extends Error {
  override readonly name = "StatsInputError";

  constructor(message: string) {
    super(message);
  }
}
