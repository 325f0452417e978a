import { describe, expect, it } from "vitest";
import { StatsInputError } from "./errors.js";
import { mannWhitneyU } from "./mann-whitney.js";

describe("StatsInputError", () => {
  it("is an Error with its own name, so it can be recognised after serialisation", () => {
    const error = new StatsInputError("x is empty");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("StatsInputError");
    expect(error.message).toBe("x is empty");
    expect(JSON.parse(JSON.stringify({ name: error.name })).name).toBe("StatsInputError");
  });

  it("is what the statistics functions throw for bad input", () => {
    let caught: unknown;
    try {
      mannWhitneyU([], [1]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StatsInputError);
    expect((caught as Error).name).toBe("StatsInputError");
  });
});
