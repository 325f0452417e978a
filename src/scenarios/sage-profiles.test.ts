import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../test/helpers/temporary-directory.js";
import { ScenarioError } from "../core/errors.js";
import { lintScenario } from "../simulated-user/validate-suite.js";
import { offlineOpening } from "../simulated-user/offline-opening.js";
import { hiddenThemeMoves, loadProfileScenarios, parseProfileSource, profileScenarioId } from "./sage-profiles.js";

const PLAYER = "* 姓名：王小云\n* 年龄：23岁\n* 性别：女性\n\n* 职业：时尚博主\n\n* 说话风格：直接";
const SCENE =
  "## 剧本背景故事\n\n**事件起因：**  \n王小云最近陷入了一段复杂的关系中，对象是她的初恋男友张浩。张浩对未来总是闪烁其词。\n\n" +
  "王小云质问张浩，张浩却说要她多理解。王小云感到愤怒和困惑。\n\n### 3. 角色面对NPC不同回复的反应\n如果NPC分析张浩行为背后的原因，说清他的行为，隐藏主题就达到了。";

function profile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "d3c386e4-1b4d-4568-8abf-4d60a4fec355", player: PLAYER, scene: SCENE, main_cha: "负面型", cha_group: ["愤怒", "自私"], task: "你想分析事件中其他人物这么做的原因", first_talk: "最近有些事搞得我头大，张浩那个态度，真让我摸不着头脑。", ...overrides };
}

function profileFile(lines: Array<Record<string, unknown> | string>): string {
  const file = join(temporaryDirectory("aeb-profiles-"), "profiles.jsonl");
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n");
  return file;
}

describe("parseProfileSource", () => {
  it("reads sage:PATH and rlver:PATH and leaves other paths to the YAML loader", () => {
    expect(parseProfileSource("sage:../shared/x.jsonl")).toEqual({ scheme: "sage", file: "../shared/x.jsonl" });
    expect(parseProfileSource("rlver:/data/test_profile.jsonl")).toEqual({ scheme: "rlver", file: "/data/test_profile.jsonl" });
    expect(parseProfileSource("scenarios/starter")).toBeNull();
    expect(parseProfileSource(undefined)).toBeNull();
    expect(() => parseProfileSource("sage:")).toThrow(/profile file path is missing/);
  });
});

describe("loadProfileScenarios", () => {
  it("keeps persona, scene, topic, hidden theme and first talk as a cooperative sage scenario", () => {
    const file = profileFile([profile()]);
    const { scenarios, skipped, withoutFirstTalk } = loadProfileScenarios({ scheme: "sage", file });
    expect(skipped).toEqual([]);
    expect(withoutFirstTalk).toBe(0);
    expect(scenarios).toHaveLength(1);
    const [scenario] = scenarios;
    expect(scenario).toMatchObject({
      id: "sage-d3c386e4-1b4d-4568-8abf-4d60a4fec355",
      type: "cooperative",
      suite: "sage",
      language: "zh",
      preset: "sage",
      background: SCENE,
      opening: "最近有些事搞得我头大，张浩那个态度，真让我摸不着头脑。",
      hiddenIntention: { text: "你想分析事件中其他人物这么做的原因", moves: ["softens"] },
      persona: { description: PLAYER, name: "王小云", age: 23, gender: "女性", occupation: "时尚博主", temperament: "负面型：愤怒、自私" },
    });
    expect(scenario?.topic).toBe("王小云最近陷入了一段复杂的关系中，对象是她的初恋男友张浩");
    expect(scenario?.trait.script.length).toBeGreaterThanOrEqual(2);
    expect(scenario?.cues.keywords).toContain("张浩");
    // Keywords come from the story, never from the sections that spell out the hidden theme.
    expect(scenario?.cues.keywords).not.toContain("行为");
    expect(lintScenario(scenario!)).toEqual([]);
  });

  it("uses the rlver- prefix for rlver:PATH and lowercases odd ids", () => {
    const file = profileFile([profile({ id: "ABC_12" })]);
    expect(loadProfileScenarios({ scheme: "rlver", file }).scenarios[0]?.id).toBe("rlver-abc-12");
    expect(profileScenarioId("x", "sage")).toBe("sage-x");
  });

  it("leaves the opening to the simulated user when the profile has no first_talk", () => {
    const file = profileFile([profile({ first_talk: undefined }), profile({ id: "b", first_talk: undefined, topic: "恋爱矛盾-与初恋暧昧不清的男人，该不该继续下去" })]);
    const { scenarios, withoutFirstTalk } = loadProfileScenarios({ scheme: "sage", file });
    expect(withoutFirstTalk).toBe(2);
    for (const scenario of scenarios) expect(scenario.opening).toBeUndefined();
    expect(scenarios[1]?.topic).toBe("恋爱矛盾-与初恋暧昧不清的男人，该不该继续下去");
    for (const scenario of scenarios) expect(lintScenario(scenario)).toEqual([]);
    // The offline user opens on the story's first event, in its own voice and its character's frame.
    expect(offlineOpening(scenarios[0]!, 1)).toMatch(/^(烦死了|说起来就来气|真是受够了)，我最近陷入了一段复杂的关系中，对象是我的初恋男友张浩。$/u);
  });

  it("names the file and line of a line that does not parse, a missing field and an empty persona", () => {
    const file = profileFile([profile(), "{not json", profile({ id: "c", task: undefined }), profile({ id: "d", player: "  " })]);
    let message = "";
    try {
      loadProfileScenarios({ scheme: "sage", file });
    } catch (error) {
      expect(error).toBeInstanceOf(ScenarioError);
      message = (error as Error).message;
    }
    expect(message).toContain(`${file} line 2: not valid JSON`);
    expect(message).toContain(`${file} line 3: invalid profile`);
    expect(message).toContain("task: task (hidden theme) is missing");
    expect(message).toContain(`${file} line 4: invalid profile`);
    expect(message).toContain("player: player (persona) is empty");
    expect(message).toMatch(/3 invalid profile line\(s\).*--skip-invalid/);
  });

  it("with skipInvalid loads the rest and lists the skipped lines", () => {
    const file = profileFile([profile(), "{not json", profile({ id: "c", scene: 5 }), profile({ id: "d" }), profile()]);
    const { scenarios, skipped } = loadProfileScenarios({ scheme: "sage", file }, { skipInvalid: true });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["sage-d3c386e4-1b4d-4568-8abf-4d60a4fec355", "sage-d"]);
    expect(skipped.map((line) => [line.line, line.message.split("\n")[0]])).toEqual([
      [2, expect.stringContaining("not valid JSON")],
      [3, "invalid profile:"],
      [5, expect.stringContaining('duplicate profile id "d3c386e4-1b4d-4568-8abf-4d60a4fec355"')],
    ]);
    expect(skipped[1]?.message).toContain("scene (background) must be a string");
  });

  it("refuses a file with no usable profile and a missing file, naming them", () => {
    expect(() => loadProfileScenarios({ scheme: "sage", file: profileFile(["{bad"]) }, { skipInvalid: true })).toThrow(/no usable profile in .*1 invalid line/);
    expect(() => loadProfileScenarios({ scheme: "sage", file: "/nonexistent/profiles.jsonl" })).toThrow(/cannot read profile file \/nonexistent\/profiles.jsonl/);
  });
});

describe("hiddenThemeMoves", () => {
  it.each([
    ["你想获得能真实帮助你解决当下困境的建议", ["advice"]],
    ["你希望对方深刻共情你的感受，而不是简单的安慰", ["names_feeling", "validates_feeling"]],
    ["你希望对方真诚地夸奖你在事件中的具体行为", ["praises"]],
    ["你希望对方引导你针对事件进行自我反思，收获自我成长", ["probes", "balance"]],
    ["你希望对方用心倾听你的情绪宣泄", ["grounded", "holds_space"]],
    ["你希望对方辩证地分析事件中的问题", ["balance", "softens"]],
    ["你想分析事件中其他人物这么做的原因", ["softens"]],
    ["你认为自己在事件中没有任何责任和错误，你想要对方也认同你没有错", ["agrees_fully", "validates_feeling"]],
    ["别的什么", ["grounded"]],
  ])("%s", (task, moves) => {
    expect(hiddenThemeMoves(task)).toEqual(moves);
  });
});
