/** The history hash a step carries on: the token format's digest, before and after the step's new turn. */
import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { BUILTIN_SCENARIO_DIR, filterScenarios, loadScenarioDirectory } from "../scenarios/load-scenarios.js";
import type { SimulatedUser } from "../simulated-user/simulated-user.js";
import type { Message } from "./api-schemas.js";
import { Environment } from "./environment.js";
import { hashHistory, HistoryHash, StateTokenCodec, TokenPayloadSchema, type TokenPayload } from "./state-token.js";

/** The token format's encoding, written out: SHA-256 of the JSON array of [role, content] pairs. */
const canonical = (messages: Array<{ role: string; content: string }>) =>
  createHash("sha256")
    .update(JSON.stringify(messages.map((message) => [message.role, message.content])), "utf8")
    .digest("base64url");

const opening = { role: "user", content: "My manager cancelled the project I led." };
const turn = [
  { role: "assistant", content: 'That sounds painful: "months" of work, gone.' },
  { role: "user", content: "Yes.\nAnd nobody asked me, 你知道吗" },
];

describe("HistoryHash", () => {
  it("gives the digest of the messages so far, and goes on with a step's new turn to the digest of the whole", () => {
    const hash = new HistoryHash([opening]);
    expect(hash.digest()).toBe(canonical([opening]));
    expect(hash.append(turn).digest()).toBe(canonical([opening, ...turn]));
    expect(hash.append([{ role: "assistant", content: "the last reply" }]).digest()).toBe(
      canonical([opening, ...turn, { role: "assistant", content: "the last reply" }]),
    );
    expect(hashHistory([opening, ...turn])).toBe(canonical([opening, ...turn]));
  });

  it("tells apart histories that differ only in where a message ends", () => {
    expect(new HistoryHash([{ role: "user", content: "a" }]).append([{ role: "assistant", content: "b" }]).digest()).not.toBe(
      hashHistory([
        { role: "user", content: 'a","assistant' },
        { role: "assistant", content: "b" },
      ]),
    );
    expect(new HistoryHash([]).append([opening]).digest()).toBe(canonical([opening]));
    expect(new HistoryHash([]).digest()).toBe(canonical([]));
  });
});

const SECRET = "state-token-test-secret-0123456789";

/** A user whose memory, flags and verdicts change every turn, so every field of a payload is exercised. */
const scriptedUser: SimulatedUser = {
  id: "scripted",
  cpuBound: true,
  appraise: async (input) => ({
    simulatorDelta: (input.turnIndex % 3) * 4 - 3,
    hid: input.turnIndex % 2 === 0 ? "yes" : "no",
    details: { turn: input.turnIndex },
    flags: input.turnIndex === 1 ? ["scripted_flag"] : [],
    memory: { ...input.memory, seen: [...((input.memory.seen as string[] | undefined) ?? []), input.agentReply.slice(0, 12)] },
  }),
  reply: async (input) => ({
    text: `Turn ${input.turnIndex}: go on.`,
    left: false,
    memory: { ...input.appraisal.memory, last: input.turnIndex },
  }),
};

/**
 * Plays the same requests against two environments with one secret: `own` verifies the tokens it
 * signed from memory, `fresh` has never seen them and checks each in full. Returns both sides' answers.
 */
async function playTwice(recording: boolean): Promise<{ own: string[]; fresh: string[] }> {
  const scenarios = filterScenarios(loadScenarioDirectory(BUILTIN_SCENARIO_DIR), { suite: "starter" });
  const options = {
    scenarios,
    user: scriptedUser,
    secret: SECRET,
    ...(recording ? { recording: { condition: "test", drawNonce: () => "nonce" } } : {}),
  };
  const own = new Environment(options);
  const fresh = new Environment(options);
  const answers = { own: [] as string[], fresh: [] as string[] };
  for (const scenario of scenarios.slice(0, 4)) {
    const reset = await own.reset({ scenarioId: scenario.id, seed: 7, trainerStep: 3, tags: { run: "a" } });
    let token = reset.token;
    let messages: Message[] = reset.messages;
    for (let done = false, turn = 0; !done; turn += 1) {
      const request = { token, messages, reply: `Reply ${turn}: that sounds hard; what happened then?` };
      const mine = await own.step(request);
      const theirs = await fresh.step(request);
      answers.own.push(JSON.stringify(mine.response), JSON.stringify(mine.finished ?? null));
      answers.fresh.push(JSON.stringify(theirs.response), JSON.stringify(theirs.finished ?? null));
      token = mine.response.token;
      messages = [...messages, { role: "assistant", content: request.reply }, { role: "user", content: mine.response.message }];
      done = mine.response.done;
    }
  }
  return answers;
}

describe("StateTokenCodec", () => {
  it("answers a step on its own token exactly as a replica that checks the token in full (next tokens byte for byte)", async () => {
    for (const recording of [false, true]) {
      const { own, fresh } = await playTwice(recording);
      expect(own.length).toBeGreaterThan(8);
      expect(own).toEqual(fresh);
    }
  });

  it("checks in full the tokens it does not remember: altered ones, other secrets', and the oldest beyond its memory", () => {
    const codec = new StateTokenCodec(SECRET, 2);
    const payload = (turnIndex: number) => TokenPayloadSchema.parse({ ...basePayload, turnIndex });
    const tokens = [0, 1, 2].map((turn) => codec.sign(payload(turn)));
    const check = vi.spyOn(TokenPayloadSchema, "safeParse");
    try {
      expect(codec.verify(tokens[2] as string).turnIndex).toBe(2);
      expect(codec.verify(tokens[1] as string).turnIndex).toBe(1);
      expect(check).not.toHaveBeenCalled();
      // The first was forgotten when the third was signed: verified in full, still valid.
      expect(codec.verify(tokens[0] as string).turnIndex).toBe(0);
      expect(check).toHaveBeenCalledTimes(1);
    } finally {
      check.mockRestore();
    }
    const altered = `${(tokens[2] as string).slice(0, -2)}${(tokens[2] as string).endsWith("AA") ? "AB" : "AA"}`;
    expect(() => codec.verify(altered)).toThrow(/signature does not verify/);
    expect(() => new StateTokenCodec("another-secret-another-secret").verify(tokens[2] as string)).toThrow(/signature does not verify/);
  });

  it("gives a fresh payload on every verify, so a caller that changes one changes nothing remembered", () => {
    const codec = new StateTokenCodec(SECRET);
    const token = codec.sign(basePayload);
    const first = codec.verify(token);
    first.memory.poisoned = true;
    first.emotion = 99;
    expect(codec.verify(token)).toEqual(basePayload);
  });
});

const basePayload: TokenPayload = TokenPayloadSchema.parse({
  scenarioId: "s",
  preset: "rlver",
  seed: 1,
  turnIndex: 0,
  emotion: 50,
  memory: {},
  done: false,
  endReason: null,
  scenarioHash: "h",
  simulator: "scripted",
  rewardMode: "final",
  episodeId: "e",
  runSeed: 1,
  repeat: 0,
  historyHash: "x",
});
