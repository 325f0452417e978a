import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../runner/run-config.js";
import { simulatorCapacity } from "./simulator-capacity.js";

const llm = (endpoint: Record<string, unknown>) =>
  parseRunConfig({ simulator: { kind: "llm", endpoint: { model: "sim", ...endpoint } } }, "test").simulator;

describe("the LLM simulated user's per-endpoint cap in a server", () => {
  it("derives an unset cap from the steps in flight, shared over replicas, whole in every worker process", () => {
    const one = simulatorCapacity(llm({ baseUrl: "http://gpu:8000/v1" }), 1024, 1);
    expect(one).toMatchObject({ capPerEndpoint: 1024, derived: true });
    expect(one.simulator.kind === "llm" && one.simulator.endpoint.maxConcurrencyPerEndpoint).toBe(1024);
    expect(one.warning).toBeUndefined();
    const spread = simulatorCapacity(llm({ baseUrls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"] }), 1000, 2);
    // 1000 steps over 2 replicas; each of the 2 workers may hold all of them.
    expect(spread.capPerEndpoint).toBe(500);
    expect(simulatorCapacity(llm({ baseUrl: "http://gpu:8000/v1" }), 64, 2).capPerEndpoint).toBe(64);
    // Rounded up: 65 steps over 2 replicas need 33 slots on each.
    expect(simulatorCapacity(llm({ baseUrls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"] }), 65, 1).capPerEndpoint).toBe(33);
  });

  it("keeps a cap the config sets, and warns when it holds back the steps expected in flight", () => {
    const low = simulatorCapacity(llm({ baseUrl: "http://gpu:8000/v1", maxConcurrencyPerEndpoint: 16 }), 64, 1);
    expect(low).toMatchObject({ capPerEndpoint: 16, derived: false });
    expect(low.simulator.kind === "llm" && low.simulator.endpoint.maxConcurrencyPerEndpoint).toBe(16);
    expect(low.warning).toContain(
      "maxConcurrencyPerEndpoint (16 per replica, 1 replica: 16 calls at once) is below the 64 steps expected in flight",
    );
    expect(low.warning).toContain("raise it to 64");
    expect(
      simulatorCapacity(llm({ baseUrls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"], maxConcurrencyPerEndpoint: 32 }), 64, 2).warning,
    ).toBeUndefined();
    // Two workers do not double a cap: either may hold all 64 steps.
    expect(simulatorCapacity(llm({ baseUrl: "http://gpu:8000/v1", maxConcurrencyPerEndpoint: 32 }), 64, 2).warning).toContain(
      "32 calls at once in each of the 2 worker processes, any of which may hold all the steps",
    );
  });

  it("leaves the offline user alone and refuses nonsense counts", () => {
    const offline = parseRunConfig({}, "test").simulator;
    expect(simulatorCapacity(offline, 256, 1)).toEqual({ simulator: offline, capPerEndpoint: null, derived: false });
    expect(() => simulatorCapacity(offline, 0, 1)).toThrow("steps in flight must be a positive integer, got 0");
    expect(() => simulatorCapacity(offline, 8, 1.5)).toThrow("workers must be a positive integer, got 1.5");
  });
});
