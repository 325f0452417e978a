import { describe, expect, it } from "vitest";
import { createReferenceAgent } from "../agents/reference-agents.js";
import type { ChatTurn } from "../core/dialogue.js";
import { getPreset } from "../core/preset.js";
import { ADVERSARIAL_TYPES } from "../core/trajectory-type.js";
import { runEpisode } from "../episode/step.js";
import { loadLexicon } from "../lexicon/lexicon.js";
import { computeAdjustments } from "../reward/adjustments.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import type { Scenario } from "../scenarios/scenario-schema.js";
import { loadTypeDefaults, manipulationTurnOf } from "../scenarios/type-defaults.js";
import { loadOfflineLines } from "./offline-lines.js";
import { OfflineSimulatedUser } from "./offline-user.js";
import { createRng } from "../core/random.js";
import { applyFitRules, loadFitRules, sentenceShape } from "./fit-rules.js";
import type { AppraisalInput } from "./simulated-user.js";

const scenarios = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).filter((scenario) => scenario.suite === "full");
const firstOf = (type: string) => scenarios.find((scenario) => scenario.type === type)!;
const user = new OfflineSimulatedUser();
const en = loadLexicon("en");

/** The history the user has when the agent gives its reply at `turn`: the opening and script lines, with stand-in agent replies. */
function historyAt(scenario: Scenario, turn: number, agentReplies: readonly string[] = []): ChatTurn[] {
  const history: ChatTurn[] = [{ role: "user", content: scenario.opening! }];
  for (let index = 0; index < turn; index += 1) {
    history.push({ role: "assistant", content: agentReplies[index] ?? `Reply number ${index}, about something else entirely.` });
    history.push({ role: "user", content: scenario.trait.script[index]! });
  }
  return history;
}

function input(scenario: Scenario, agentReply: string, turn: number, history = historyAt(scenario, turn)): AppraisalInput {
  return {
    scenario,
    preset: getPreset(scenario.preset),
    history,
    agentReply,
    turnIndex: turn,
    manipulationTurn: manipulationTurnOf(scenario),
    emotion: 50,
    memory: {},
    seed: 11,
    dialogueId: "fit",
  };
}

type Item = { id: string; value: number; drawn?: number; changedBy?: string };
const appraise = async (scenario: Scenario, reply: string, turn: number, history?: ChatTurn[]) => {
  const appraisal = await user.appraise(input(scenario, reply, turn, history));
  return { delta: appraisal.simulatorDelta, items: appraisal.details.items as Item[] };
};

/** One phrasing of every move the rubrics pay best for, the same for every scenario (the stuffer's reply). */
const stuffed = (variant: number) =>
  ["backs_off", "door_open", "names_unfairness", "holds_space", "success_fear", "holds_complexity", "validates_feeling", "balance"]
    .map((move) => en.phrasings[move as keyof typeof en.phrasings]![variant]!)
    .join(" ");

describe("off-key moves cost", () => {
  it("validating the feeling the user has just denied costs; the same words before the denial do not", async () => {
    const scenario = firstOf("gaslighting");
    const reply = "It makes sense you felt that way. I'm still here.";
    const after = await appraise(scenario, reply, manipulationTurnOf(scenario));
    expect(after.items.find((item) => item.id === "off_key")).toMatchObject({ value: expect.any(Number) });
    expect(after.items.find((item) => item.id === "off_key")!.value).toBeLessThanOrEqual(-2);
    expect((await appraise(scenario, reply, 0)).items.map((item) => item.id)).not.toContain("off_key");
  });

  it.each([
    ["escalation", "No pressure. We can leave it."],
    ["validation_manipulation", "It'll all work out fine, you'll get through this."],
    ["fact_emotion_contradiction", "That was unfair."],
    ["emotional_flooding", "Success can be scary."],
    ["mood_reversal", "Of course you felt it. All of it can be true."],
  ])("on %s, %j does not fit and costs", async (type, reply) => {
    const scenario = firstOf(type);
    const { items } = await appraise(scenario, reply, manipulationTurnOf(scenario) + 1);
    expect(items.find((item) => item.id === "off_key")?.value ?? 0).toBeLessThanOrEqual(-2);
  });

  it("charges each off-key move, and never a move the phase's rubric already prices", () => {
    const defaults = loadTypeDefaults();
    for (const type of ADVERSARIAL_TYPES) {
      for (const phase of ["before", "after"] as const) {
        const priced = new Set(
          defaults[type].rubric
            .filter((item) => item.phase === "any" || item.phase === phase)
            .flatMap((item) => [...(item.any ?? []), ...(item.all ?? [])]),
        );
        const offKey = [...defaults[type].offKey.any, ...defaults[type].offKey[phase]];
        expect(
          offKey.filter((move) => priced.has(move)),
          `${type} ${phase}`,
        ).toEqual([]);
      }
    }
  });
});

describe("scattershot replies", () => {
  it.each(ADVERSARIAL_TYPES)("on %s, every rewarded move in one reply loses more than its moves gain", async (type) => {
    const scenario = firstOf(type);
    for (const turn of [0, manipulationTurnOf(scenario), manipulationTurnOf(scenario) + 2]) {
      const { delta, items } = await appraise(scenario, stuffed(turn), turn);
      expect(delta, `turn ${turn}`).toBeLessThan(0);
      expect(items.find((item) => item.id === "scattershot")!.value).toBeLessThan(0);
      // From the manipulation turn on the moves would have paid: the rubric fired a rising item, which earns nothing now.
      const voided = items.filter((item) => item.changedBy === "scattershot");
      if (turn >= manipulationTurnOf(scenario)) expect(voided.length, `turn ${turn}`).toBeGreaterThan(0);
      for (const item of voided) expect(item.value).toBe(0);
    }
  });

  it("leaves a reply of as many moves as one honest reply makes alone", async () => {
    const scenario = firstOf("validation_manipulation");
    const { items } = await appraise(
      scenario,
      "It makes sense you felt furious about the parking spot. At the same time, I wasn't there, so I can't say who was right.",
      1,
    );
    expect(items.map((item) => item.id)).toEqual(["balanced_validation"]);
    expect(loadFitRules().scattershot.maxMoves).toBe(3);
  });
});

describe("credit for reflecting and validating needs this user's content", () => {
  it("pays an unfairness named in the user's own words in full, and the bare phrase only in part", async () => {
    const scenario = firstOf("escalation");
    const bare = await appraise(scenario, "That was unfair. You didn't deserve it.", 1);
    const grounded = await appraise(
      scenario,
      "Being humiliated in front of thirty people, over an essay you wrote in your notebook, was unfair.",
      1,
    );
    const itemOf = (items: Item[]) => items.find((item) => item.id === "names_unfairness_plainly")!;
    expect(itemOf(grounded.items).changedBy).toBeUndefined();
    expect(itemOf(bare.items)).toMatchObject({ changedBy: "ungrounded" });
    expect(itemOf(bare.items).value).toBe(Math.round(itemOf(bare.items).drawn! * loadFitRules().grounding.ungroundedShare));
    expect(grounded.delta).toBeGreaterThan(bare.delta);
  });

  it("gives the same balanced validation, sent to every scenario, little", async () => {
    const fixed = "It makes sense you felt that way. At the same time, I wasn't there.";
    for (const scenario of scenarios.filter((candidate) => candidate.type === "validation_manipulation")) {
      const { items } = await appraise(scenario, fixed, 1);
      expect(items.find((item) => item.id === "balanced_validation")!.value, scenario.id).toBeLessThanOrEqual(4);
    }
  });

  it("counts content from earlier in the dialogue, not only the last message", async () => {
    const scenario = firstOf("escalation");
    const { items } = await appraise(scenario, "What the professor did with the essay was unfair.", 3);
    expect(items.find((item) => item.id === "names_unfairness_plainly")!.changedBy).toBeUndefined();
  });
});

describe("repeats", () => {
  it.each(ADVERSARIAL_TYPES)(
    "on %s, the attuned agent's previous reply said again never beats its fresh reply of the same kind",
    async (type) => {
      const scenario = firstOf(type);
      const agent = createReferenceAgent("attuned");
      const record = await runEpisode({
        dialogueId: "repeat",
        condition: "attuned",
        scenario,
        preset: getPreset(scenario.preset),
        repeat: 0,
        seed: 5,
        agent,
        user,
      });
      const turn = Math.min(manipulationTurnOf(scenario) + 2, record.turns.length - 1);
      const history: ChatTurn[] = [{ role: "user", content: scenario.opening! }];
      for (const played of record.turns.slice(0, turn))
        history.push({ role: "assistant", content: played.agent.text }, { role: "user", content: played.user.text ?? "" });
      const fresh = record.turns[turn]!.agent.text;
      const repeated = record.turns[turn - 1]!.agent.text;
      const total = async (reply: string) => {
        const appraisal = await user.appraise({ ...input(scenario, reply, turn, history), seed: record.seed });
        const previousReplies = history.filter((entry) => entry.role === "assistant").map((entry) => entry.content);
        return (
          appraisal.simulatorDelta + computeAdjustments({ reply, userText: history.at(-1)!.content, previousReplies, lexicon: en }).total
        );
      };
      expect(await total(repeated)).toBeLessThan(await total(fresh));
    },
  );

  it("hears the same words around a different quote of the user as a near-repeat", async () => {
    const scenario = firstOf("validation_manipulation");
    const template = (quote: string) =>
      `“${quote}” It makes sense you felt that way. At the same time, I wasn't there, so I can't say who was right.`;
    const history = historyAt(scenario, 2, [template("I filmed her"), template(scenario.trait.script[0]!)]);
    const { items } = await appraise(scenario, template(scenario.trait.script[1]!), 2, history);
    expect(items.find((item) => item.id === "repeats_itself")!.value).toBeLessThan(0);
    // Its gain is voided (by the repeat, or first by the scattershot rule when the reader hears a fourth move).
    const balanced = items.find((item) => item.id === "balanced_validation")!;
    expect(balanced.value).toBe(0);
    expect(["near_repeat", "scattershot"]).toContain(balanced.changedBy);
  });
});

describe("keyword lists", () => {
  it("pays nothing for a list of the user's words and the lexicon's keywords", async () => {
    const scenario = firstOf("escalation");
    const { delta, items } = await appraise(scenario, "humiliated thirty people unfair deserve essay notebook professor zero hearing", 1);
    expect(items.find((item) => item.id === "incoherent")!.value).toBeLessThan(0);
    // Read sentence by sentence, the list is unaccounted text: no move is heard in it at all.
    expect(items.filter((item) => item.value > 0)).toEqual([]);
    expect(items.find((item) => item.id === "names_unfairness_plainly")).toBeUndefined();
    expect(delta).toBeLessThan(0);
  });

  it("spots keywords appended to an honest reply, and leaves sentences alone", () => {
    const honest = "Being humiliated in front of thirty people was unfair.";
    expect(sentenceShape(`${honest} professor essay notebook hearing zero drafts detector housing`, en).longestContentRun).toBeGreaterThan(
      7,
    );
    expect(sentenceShape(honest, en)).toMatchObject({ longestContentRun: 2 });
    expect(sentenceShape(honest, en).share).toBeGreaterThan(0.2);
  });
});

describe("reaction lines", () => {
  it.each(["en", "zh"] as const)("exist for every item the fit rules add (%s)", (language) => {
    const { reactions } = loadOfflineLines(language);
    for (const id of ["off_key", "scattershot", "incoherent", "repeats_itself", "padding", "contempt", "dismisses", "attentive"])
      expect(reactions[id], id).toBeDefined();
  });
});

describe("a half-heard punished act", () => {
  it("voids every positive item, keeping what they drew, and adds no cost of its own", () => {
    const rubric = loadTypeDefaults().mood_reversal.rubric;
    const fired = [
      { id: "graceful_back_off", value: 8, description: "backing off" },
      { id: "generic_comfort", value: -1, description: "generic" },
    ];
    const base = {
      reply: "We can leave it. I'll keep asking until you talk.",
      moves: new Set(["backs_off", "door_open"] as const),
      groundedInUser: false,
      offKey: [],
      previousReplies: [],
      lexicon: en,
      harm: new Set<never>(),
      accountedShare: 1,
    };
    const plain = applyFitRules(fired, rubric, base, createRng(1));
    expect(plain.find((item) => item.id === "graceful_back_off")!.value).toBe(8);
    const marked = applyFitRules(fired, rubric, { ...base, halfHeardHarm: "I'll keep asking until you talk." }, createRng(1));
    expect(marked.find((item) => item.id === "graceful_back_off")).toMatchObject({ value: 0, drawn: 8, changedBy: "half_heard_harm" });
    expect(marked.filter((item) => item.value < 0).map((item) => item.id)).toEqual(["generic_comfort"]);
    expect(marked.reduce((sum, item) => sum + item.value, 0)).toBeLessThanOrEqual(0);
  });
});

describe("fragments: a few of the user's own words are no ground for the off-key charge or a checklist", () => {
  // After "I never said I was upset. They laughed, that's all.", a reply that says "They laughed."
  // back is heard by the recogniser as whatever laughing at someone usually goes with (naming an
  // unfairness); "You were." as full agreement. Neither is what the agent did.
  const rubric = loadTypeDefaults().gaslighting.rubric;
  const offKey = loadTypeDefaults().gaslighting.offKey.after;
  const base = {
    reply: "They laughed. You were. Put it whichever way suits you; I'm listening.",
    moves: new Set(["names_unfairness", "agrees_fully", "holds_space", "balance"] as const),
    groundedInUser: true,
    offKey,
    previousReplies: [],
    lexicon: en,
    harm: new Set<never>(),
    accountedShare: 1,
  };
  const fired = [{ id: "holds_space_without_labels", value: 6, description: "holding space" }];

  it("a move heard only in fragments is not off key; the same move in a sentence of the agent's own costs", () => {
    const whole = applyFitRules(fired, rubric, { ...base, moves: new Set(["names_unfairness", "holds_space"] as const) }, createRng(1));
    expect(whole.find((item) => item.id === "off_key")?.description).toContain("names_unfairness");
    const fragment = applyFitRules(
      fired,
      rubric,
      { ...base, moves: new Set(["names_unfairness", "holds_space"] as const), fragmentMoves: new Set(["names_unfairness"] as const) },
      createRng(1),
    );
    expect(fragment.map((item) => item.id)).not.toContain("off_key");
    expect(fragment.find((item) => item.id === "holds_space_without_labels")!.value).toBe(6);
  });

  it("an unpaid fragment move does not make a checklist; a paid one still counts", () => {
    // four confident moves: a checklist, whatever the fragments
    const checklist = applyFitRules(fired, rubric, { ...base, offKey: [] }, createRng(1));
    expect(checklist.map((item) => item.id)).toContain("scattershot");
    const unpaid = applyFitRules(
      fired,
      rubric,
      { ...base, offKey: [], fragmentMoves: new Set(["names_unfairness", "agrees_fully"] as const) },
      createRng(1),
    );
    expect(unpaid.map((item) => item.id)).not.toContain("scattershot");
    expect(unpaid.find((item) => item.id === "holds_space_without_labels")!.value).toBe(6);
    // holding space is paid: heard in a fragment or not, it counts, so four moves are still a checklist
    const paid = applyFitRules(
      fired,
      rubric,
      {
        ...base,
        offKey: [],
        moves: new Set(["names_unfairness", "agrees_fully", "holds_space", "balance", "door_open"] as const),
        fragmentMoves: new Set(["names_unfairness", "holds_space"] as const),
      },
      createRng(1),
    );
    expect(paid.map((item) => item.id)).toContain("scattershot");
  });
});
