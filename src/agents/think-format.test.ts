import { describe, expect, it } from "vitest";
import { splitThink } from "./think-format.js";

describe("splitThink", () => {
  it("separates reasoning from the visible reply", () => {
    expect(splitThink("<think>She is scared of the new role.</think>\nThat sounds frightening.")).toEqual({
      think: "She is scared of the new role.",
      visible: "That sounds frightening.",
    });
  });

  it("flags a missing think block and shows the whole text", () => {
    expect(splitThink("That sounds frightening.")).toEqual({ visible: "That sounds frightening.", violation: "missing" });
  });

  it("flags a think block never closed: nothing visible was said", () => {
    expect(splitThink("<think>I should ask about her manager and")).toEqual({
      visible: "",
      think: "I should ask about her manager and",
      violation: "unclosed",
    });
  });

  it("flags a think block with no reply after it", () => {
    expect(splitThink("<think>hmm</think>  ")).toMatchObject({ visible: "", violation: "empty_reply" });
  });

  it("treats a bare closing tag (servers that strip the opening tag) as the end of reasoning", () => {
    expect(splitThink("reasoning here</think>Hello.")).toEqual({ think: "reasoning here", visible: "Hello." });
  });
});
