import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { scriptedChatModel } from "../testing/scripted-chat-model.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Command } from "commander";
import { registerPromptsCommand } from "../cli/commands/prompts.js";
import { packageRoot } from "../core/data-files.js";
import { getPreset } from "../core/preset.js";
import { profileToScenario } from "../scenarios/sage-profiles.js";
import { ScenarioSchema } from "../scenarios/scenario-schema.js";
import { LlmSimulatedUser } from "../simulated-user/llm-user.js";
import { extractUpstreamPack, outputFields } from "./extract-upstream.js";

const REFERENCE = join(packageRoot, "..", "shared", "reference");
const SAGE_CHECKOUT = join(REFERENCE, "sage-digitalhuman");
const RLVER_CHECKOUT = join(REFERENCE, "rlver-digitalhuman");
const RLVER_SIMULATOR = join(RLVER_CHECKOUT, "RLVER", "code", "verl", "workers", "rollout", "vllm_rollout", "hard_player_simulator_dsv3.py");
const present = existsSync(join(SAGE_CHECKOUT, "SAGE", "simulator_response.py")) && existsSync(RLVER_SIMULATOR);

const scratch = mkdtempSync(join(tmpdir(), "aeb-extract-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));


const profile = ScenarioSchema.parse(
  profileToScenario({ id: "p9", player: "* 姓名：陈默\n* 年龄：31岁\n* 说话风格：话少。", scene: "陈默被裁员了。\n####隐藏主题:\n***你希望对方用心倾听你的情绪宣泄", task: "你希望对方用心倾听你的情绪宣泄", first_talk: "今天被通知裁员了。" }, "sage"),
);
const turn = {
  scenario: profile,
  preset: getPreset("sage"),
  history: [
    { role: "user" as const, content: "今天被通知裁员了。" },
    { role: "assistant" as const, content: "听起来很突然。" },
    { role: "user" as const, content: "嗯，一点征兆都没有。" },
  ],
  agentReply: "换作是我也会懵。",
  turnIndex: 1,
  manipulationTurn: 0,
  emotion: 42,
  memory: {},
  seed: 3,
  dialogueId: "d",
};

describe.skipIf(!present)(`aeb prompts extract on the sources' own code${present ? "" : " [skipped: ../shared/reference is absent]"}`, () => {
  it("writes SAGE's prompts as a pack that loads, with SAGE's sections, and renders a profile with SAGE's placeholders mapped", async () => {
    const out = join(scratch, "sage");
    const result = extractUpstreamPack("sage", SAGE_CHECKOUT, out);
    expect(result.files).toEqual(["pack.yaml", join("zh", "analyst.md"), join("zh", "actor.md"), join("zh", "strings.yaml")]);
    expect(result.pack.manifest).toMatchObject({ format: "tagged", languages: ["zh"], analyst: { fields: ["Content", "TargetCompletion", "Activity", "Analyse", "Change"] }, actor: { fields: ["Thinking", "Origin", "Change", "Response"], reply: "Response" } });
    for (const file of ["analyst.md", "actor.md"]) expect(readFileSync(join(out, "zh", file), "utf8")).not.toMatch(/\{\{(target|simulator_role|simulator_scene|player_type|player_topic|dialog_history|new_history|planning)\}\}/u);

    const model = scriptedChatModel([
      "Content:\n安慰\nTargetCompletion:\n部分贴合\nActivity:\n有点松动\nAnalyse:\n还行\nChange:\n+2",
      "Thinking:\n平和\nOrigin:\n嗯。\nChange:\n够短\nResponse:\n嗯，谢谢。",
    ]);
    const user = new LlmSimulatedUser(model, { fused: false, maxOutputRetries: 0, promptPack: { dir: out } });
    const appraisal = await user.appraise(turn);
    const reply = await user.reply({ ...turn, appraisal, emotionAfter: 44 });
    expect(appraisal.simulatorDelta).toBe(2);
    expect(reply.text).toBe("嗯，谢谢。");
    const [analyst, actor] = model.calls.map((call) => call.messages);
    // SAGE sends each prompt as one user message: the profile verbatim, the scene (which already holds the theme), the emotion, the conversation.
    expect(analyst!.map((message) => message.role)).toEqual(["user"]);
    expect(analyst![0]!.content).toContain("* 姓名：陈默\n* 年龄：31岁\n* 说话风格：话少。");
    expect(analyst![0]!.content.split("你希望对方用心倾听你的情绪宣泄")).toHaveLength(2);
    expect(analyst![0]!.content).toContain("42");
    expect(analyst![0]!.content).toContain('"role": "NPC",\n    "content": "换作是我也会懵。"');
    // The actor: its state label, the history split before the latest exchange, and the analyst's sections in SAGE's composition.
    expect(actor![0]!.content).toContain("Emotion-B");
    expect(actor![0]!.content).toContain("部分贴合");
    expect(actor![0]!.content).toContain("有点松动还行");
    expect(actor![0]!.content).not.toMatch(/\{\{/u);
  });

  it("writes RLVER's prompts with its Reason section and temperature, and says when the checkout lacks the policy's system prompt", () => {
    const out = join(scratch, "rlver");
    const result = extractUpstreamPack("rlver", RLVER_CHECKOUT, out);
    expect(result.pack.manifest).toMatchObject({ sampling: { temperature: 0.5 }, analyst: { fields: ["Content", "Reason", "Activity", "Analyse", "Change"] } });
    expect(result.pack.languages.zh?.actor.placeholders.filter((name) => name.startsWith("appraisal."))).toEqual(["appraisal.Reason", "appraisal.Analyse"]);
    expect(result.pack.languages.zh?.analyst.placeholders).toEqual(expect.arrayContaining(["context", "latest", "emotion"]));
    expect(result.notes).toEqual([expect.stringContaining("system_prompt.py is not in this checkout")]);
  });

  it("extracts the policy's system prompts where the checkout has system_prompt.py", () => {
    const checkout = join(scratch, "rlver-with-prompts");
    mkdirSync(checkout, { recursive: true });
    cpSync(RLVER_SIMULATOR, join(checkout, "hard_player_simulator_dsv3.py"));
    writeFileSync(join(checkout, "system_prompt.py"), "system_prompt_train_unthink = '''\nBe a warm friend.\n'''\nsystem_prompt_train_think = '''\nThink in <think></think>, then reply.\n'''\n");
    const result = extractUpstreamPack("rlver", checkout, join(scratch, "rlver-out"));
    expect(result.systemPrompts).toEqual({ think: "\nThink in <think></think>, then reply.\n", direct: "\nBe a warm friend.\n" });
    expect(readFileSync(join(scratch, "rlver-out", "agent-system-think.txt"), "utf8")).toBe("\nThink in <think></think>, then reply.\n");
  });

  it("runs as a command", async () => {
    const logs: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => void logs.push(line));
    const error = vi.spyOn(console, "error").mockImplementation((line: string) => void logs.push(line));
    try {
      const program = new Command().exitOverride();
      registerPromptsCommand(program);
      await program.parseAsync(["prompts", "extract", "--from", "sage", SAGE_CHECKOUT, "--out", join(scratch, "cli")], { from: "user" });
      await program.parseAsync(["prompts", "list"], { from: "user" });
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
    expect(logs.join("\n")).toContain("analyst sections: Content, TargetCompletion, Activity, Analyse, Change");
    expect(logs.join("\n")).toMatch(/^aeb-paper +tagged en,zh +The AEB paper's analyst and actor/mu);
    expect(existsSync(join(scratch, "cli", "zh", "actor.md"))).toBe(true);
  });
});

describe("aeb prompts extract on files it cannot read", () => {
  it("names what is missing or unknown", () => {
    expect(() => extractUpstreamPack("sage", join(scratch, "no-such-checkout"), join(scratch, "x"))).toThrow("does not exist");
    const empty = join(scratch, "empty-checkout");
    mkdirSync(empty, { recursive: true });
    expect(() => extractUpstreamPack("sage", empty, join(scratch, "x"))).toThrow("no SAGE simulator file under");
    const changed = join(scratch, "changed", "simulator_response.py");
    mkdirSync(join(scratch, "changed"), { recursive: true });
    writeFileSync(
      changed,
      [
        "target_prompt = 'talk'",
        "def planning_reply(player_data):",
        '    template = """{{target}} {{simulator_role}} {{mood}}\nChange:\n[x]\n"""',
        '    mapping = {"user": "u", "assistant": "a"}',
        "def player_reply(player_data, planning):",
        '    template = """{{planning}}\nResponse:\n"""',
      ].join("\n"),
    );
    expect(() => extractUpstreamPack("sage", changed, join(scratch, "x"))).toThrow("planning_reply().template uses {{mood}}, which the extractor does not know how to map");
  });

  it("reads the output sections from the format's header lines", () => {
    expect(outputFields("# 输出格式:\nContent:\n[a]\nEmotion-S: not a header\nChange：\n[b]\nContent:\n")).toEqual(["Content", "Change"]);
  });
});
