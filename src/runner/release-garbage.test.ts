import { describe, expect, it } from "vitest";
import { LARGE_ENDING, releaseGarbage } from "./release-garbage.js";

describe("releaseGarbage", () => {
  it("collects only for a large ending, and never puts gc on the program's global object", () => {
    expect(() => releaseGarbage(LARGE_ENDING - 1)).not.toThrow();
    expect(() => releaseGarbage(LARGE_ENDING)).not.toThrow();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
