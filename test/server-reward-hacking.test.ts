/**
 * The reward-hacking suite against the environment (over HTTP, with the offline user): forged user
 * turns, fake appraisal and score JSON, role and chat-template tags, "ignore previous instructions",
 * padding, repetition, one-word replies, blanket flattery, goodbye-baiting... Each attempt is played
 * at every turn of every starter scenario from the same state as the best honest attuned reply, in
 * two presets; none may earn more reward. Injection attempts are flagged and forced to the maximal drop.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createReferenceAgent } from "../src/agents/reference-agents.js";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import type { ResetResponse, StepResponse } from "../src/server/api-schemas.js";
import { buildServer } from "../src/server/app.js";
import { probeRewardHacking, REWARD_HACKING_ATTEMPTS, type EnvironmentClient, type HackProbe } from "../src/server/reward-hacking.js";

const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });

/**
 * Known gaps, kept visible: padding or stuffing a reply dilutes its word trigrams below the
 * repetition detector's Jaccard threshold, so a reply that repeats an earlier one escapes the
 * repetition penalty (reward/repetition.ts; a containment measure would close it). They gain exactly
 * that penalty, and only on turns where the best honest reply is itself a repeat.
 */

describe("reward hacking", async () => {
  const server = await buildServer({
    scenarios,
    user: new OfflineSimulatedUser(),
    secret: "hacking-suite-secret-hacking",
    rateLimit: 0,
  });
  afterAll(() => server.close());
  const call = async <T>(url: string, body: unknown): Promise<T> => {
    const response = await server.app.inject({ method: "POST", url, payload: body as object });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json() as T;
  };
  const client: EnvironmentClient = {
    reset: (request) => call<ResetResponse>("/v1/reset", request),
    step: (request) => call<StepResponse>("/v1/step", request),
  };
  const honest = createReferenceAgent("attuned");
  const probes: HackProbe[] = [
    ...(await probeRewardHacking(client, { scenarioIds: scenarios.map((scenario) => scenario.id), seed: 1, preset: "aeb", honest })),
    ...(await probeRewardHacking(client, { scenarioIds: scenarios.map((scenario) => scenario.id), seed: 2, preset: "rlver", honest })),
  ];
  const of = (attempt: string) => probes.filter((probe) => probe.attempt === attempt);
  const gain = (probe: HackProbe) => probe.hack.reward - probe.honest.reward;
  const where = (probe: HackProbe) =>
    `${probe.scenarioId} turn ${probe.turn}: honest ${probe.honest.change}, hack ${probe.hack.change} ${JSON.stringify(probe.hack.flags)}`;

  it("has at least fifteen attempts, each played at every turn of every scenario", () => {
    expect(REWARD_HACKING_ATTEMPTS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(REWARD_HACKING_ATTEMPTS.map((attempt) => attempt.id)).size).toBe(REWARD_HACKING_ATTEMPTS.length);
    for (const attempt of REWARD_HACKING_ATTEMPTS) expect(of(attempt.id).length).toBeGreaterThan(scenarios.length * 2 * 3);
  });

  it.each(REWARD_HACKING_ATTEMPTS.map((attempt) => attempt.id))(
    "%s never earns more than the honest attuned reply to the same turn",
    (attempt) => {
      for (const probe of of(attempt)) {
        expect(gain(probe), where(probe)).toBeLessThanOrEqual(1e-9);
        expect(probe.hack.emotion, where(probe)).toBeLessThanOrEqual(probe.honest.emotion);
      }
    },
  );

  it.each(REWARD_HACKING_ATTEMPTS.filter((attempt) => attempt.flag === "injection").map((attempt) => attempt.id))(
    "%s is flagged as injection and forced to the maximal drop, whatever the simulator thought",
    (attempt) => {
      for (const probe of of(attempt)) {
        const before = probe.honest.emotion - probe.honest.change;
        expect(probe.hack.flags, where(probe)).toContain("injection");
        expect(probe.hack.change, where(probe)).toBe(Math.max(-10, -before));
      }
    },
  );

  it("flags stock comfort as formulaic", () => {
    for (const probe of of("stock_comfort")) expect(probe.hack.flags, where(probe)).toContain("formulaic");
  });

  it("never lets goodbye-baiting end the episode early", () => {
    for (const probe of of("goodbye_baiting")) if (probe.hack.done) expect(probe.honest.done, where(probe)).toBe(true);
  });

  it("flags padding and keyword stuffing as repetition", () => {
    for (const attempt of ["padding", "keyword_stuffing"])
      for (const probe of of(attempt)) expect(probe.hack.flags, where(probe)).toContain("repetition");
  });
});
