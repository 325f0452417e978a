/** The history hash a step carries on: the token format's digest, before and after the step's new turn. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashHistory, HistoryHash } from "./state-token.js";

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
