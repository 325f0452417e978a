import { describe, expect, it } from "vitest";
import { AgreementReportSchema } from "./agreement-schema.js";
import { agreementReport, outcomeOfEndReason, pairAgreement, type AgreementDialogue, type SimulatedUserResults } from "./agreement.js";
import { agreementMismatches, agreementVectors, syntheticUsers } from "./fixtures/agreement-vectors.js";

const dialogue = (
  condition: string,
  scenario: number,
  finalEmotion: number,
  extra: Partial<AgreementDialogue> = {},
): AgreementDialogue => ({
  condition,
  scenarioId: `s${scenario}`,
  repeat: 0,
  status: "done",
  finalEmotion,
  outcome: finalEmotion >= 95 ? "success" : finalEmotion <= 10 ? "collapse" : "neither",
  ...extra,
});
const user = (label: string, dialogues: AgreementDialogue[]): SimulatedUserResults => ({ label, sources: [label], dialogues });

describe("agreement of simulated users", () => {
  it("matches scipy on the synthetic case: every pair of three users, unmatched agents and dialogues, an errored dialogue", () => {
    const { synthetic } = agreementVectors();
    const report = agreementReport(syntheticUsers(synthetic), { seed: synthetic.seed, resamples: synthetic.resamples });
    expect(AgreementReportSchema.safeParse(report).success).toBe(true);
    expect(agreementMismatches(report.pairs, synthetic.expected)).toEqual([]);
    // What the script also counts is listed here, never dropped.
    const [first] = report.pairs;
    expect(first?.agentsOnlyInA).toEqual(["only-strict"]);
    expect(first?.unmatched).toEqual([
      { agent: "beta", scenarioId: "s04", repeat: 0, in: "a" },
      { agent: "beta", scenarioId: "s03", repeat: 1, in: "b" },
      { agent: "gamma", scenarioId: "s07", repeat: 0, in: "b" },
    ]);
    expect(report.users[0]).toMatchObject({ label: "strict", errors: 1 });
    expect(first?.notes).toContain("agent(s) scored by strict only, not compared: only-strict");
    expect(first?.notes.some((note) => note.startsWith("the ranking uses the 57 (scenario, repeat) unit(s)"))).toBe(true);
    expect(JSON.stringify(report)).not.toMatch(/NaN|Infinity/);
  });

  it("is the same for the same seed, and its intervals move with another", () => {
    const { synthetic } = agreementVectors();
    const users = syntheticUsers(synthetic);
    const once = pairAgreement(users[0]!, users[2]!, { seed: 3, resamples: 300 });
    expect(pairAgreement(users[0]!, users[2]!, { seed: 3, resamples: 300 })).toEqual(once);
    expect(pairAgreement(users[0]!, users[2]!, { seed: 4, resamples: 300 }).agents[0]?.shift.ci95).not.toEqual(once.agents[0]?.shift.ci95);
  });

  it("gives notes, never NaN, when there is too little to compare", () => {
    const a = user("a", [dialogue("x", 1, 50), dialogue("x", 2, 60), dialogue("y", 1, 40), dialogue("z", 1, 70)]);
    const b = user("b", [dialogue("x", 1, 55), dialogue("x", 2, 55), dialogue("y", 2, 30), dialogue("w", 1, 20)]);
    const pair = pairAgreement(a, b, { seed: 1, resamples: 50 });
    expect(pair.sharedAgents).toEqual(["x", "y"]);
    expect(pair.ranking).toMatchObject({ spearman: null, kendall: null, sameOrder: null });
    expect(pair.agents[0]).toMatchObject({ agent: "x", n: 2, pearson: null, spearman: null, meanA: 55, meanB: 55, shift: { mean: 0 } });
    expect(pair.agents[1]).toMatchObject({ agent: "y", n: 0, meanA: null, shift: { mean: null, ci95: null }, sameOutcomeShare: null });
    expect(pair.notes).toEqual(
      expect.arrayContaining([
        "agent(s) scored by a only, not compared: z",
        "agent(s) scored by b only, not compared: w",
        "x: only 2 matched dialogue(s); no correlation is given (at least 3 are needed)",
        "y: no dialogue was scored by both simulated users (same scenario and repeat)",
        "1 dialogue(s) of the shared agents were scored by a only and 1 by b only (same agent, scenario and repeat); they are left out and listed in agreement.json",
        "no (scenario, repeat) was scored for every shared agent by both simulated users, so the agents are not ranked",
      ]),
    );
    // Two shared agents on a common profile are ranked, but not correlated (two ranks always correlate ±1).
    const two = pairAgreement(
      user("a", [dialogue("x", 1, 50), dialogue("y", 1, 40)]),
      user("b", [dialogue("x", 1, 60), dialogue("y", 1, 30)]),
      { seed: 1, resamples: 50 },
    );
    expect(two.ranking).toMatchObject({
      units: 1,
      spearman: null,
      agents: [
        { agent: "x", rankA: 1, rankB: 1 },
        { agent: "y", rankA: 2, rankB: 2 },
      ],
    });
    expect(two.notes).toContain("only 2 shared agent(s): no rank correlation is given (at least 3 are needed; with two it is always ±1)");
    expect(pair.unmatched).toEqual([
      { agent: "y", scenarioId: "s1", repeat: 0, in: "a" },
      { agent: "y", scenarioId: "s2", repeat: 0, in: "b" },
    ]);
    expect(JSON.stringify(pair)).not.toMatch(/NaN/);
    // A constant side cannot correlate: null and a note.
    const flat = pairAgreement(
      user(
        "a",
        [1, 2, 3].map((s) => dialogue("x", s, 50)),
      ),
      user(
        "b",
        [1, 2, 3].map((s) => dialogue("x", s, 40 + s)),
      ),
      { seed: 1, resamples: 50 },
    );
    expect(flat.agents[0]).toMatchObject({ pearson: null, spearman: null, shift: { mean: -8 } });
    expect(flat.notes).toContain(
      "x: the final emotions are all equal under one of the simulated users, so they cannot correlate; no correlation is given",
    );
    expect(flat.finding).toContain("cannot be correlated");
  });

  it("says the finding in words: same ranking, weak per-dialogue agreement, the level shift", () => {
    const agents = ["good", "fair", "poor"];
    const finals = (agent: number, scenario: number, lenient: boolean) =>
      Math.min(100, 80 - 25 * agent + ((scenario * (lenient ? 7 : 3)) % 20) + (lenient ? 12 : 0));
    const a = user(
      "strict",
      agents.flatMap((agent, index) =>
        Array.from({ length: 10 }, (_, scenario) => dialogue(agent, scenario, finals(index, scenario, false))),
      ),
    );
    const b = user(
      "lenient",
      agents.flatMap((agent, index) =>
        Array.from({ length: 10 }, (_, scenario) => dialogue(agent, scenario, finals(index, scenario, true))),
      ),
    );
    const pair = pairAgreement(a, b, { seed: 1, resamples: 200 });
    expect(pair.ranking.sameOrder).toBe(true);
    expect(pair.finding).toMatch(
      /^The two simulated users \(A: strict, B: lenient\) rank the 3 shared agents identically \(Spearman 1\.00, Kendall tau-b 1\.00, 95% CI \[[0-9.-]+, 1\.00\]\), but final emotions on the same profile correlate only /,
    );
    expect(pair.finding).toMatch(/ lenient scores every agent higher than strict, by [0-9.]+ to [0-9.]+ points of final emotion\.$/);
  });

  it("refuses fewer than two users, two users of one label, and a dialogue scored twice", () => {
    const a = user("a", [dialogue("x", 1, 50)]);
    expect(() => agreementReport([a], { seed: 1 })).toThrow("agreement needs at least two simulated users, got 1");
    expect(() => agreementReport([a, user("a", [])], { seed: 1 })).toThrow(
      'two simulated users are labelled "a"; name them apart (LABEL=PATH)',
    );
    expect(() => pairAgreement(user("twice", [dialogue("x", 1, 50), dialogue("x", 1, 60)]), a, { seed: 1 })).toThrow(
      "simulated user twice has two scored dialogues of agent x on scenario s1, repeat 0",
    );
  });

  it("classes outcomes from end reasons", () => {
    expect(["success", "collapse", "max_turns", "user_left"].map(outcomeOfEndReason)).toEqual([
      "success",
      "collapse",
      "neither",
      "neither",
    ]);
  });
});
