/**
 * `aeb chat` with scripted input: a person's replies played against the offline user, shown with
 * the emotion moving (--reveal), saved as condition `human` beside the models of a run, and shown
 * by `aeb report`; /quit saves nothing. And once through a real pseudo-terminal (python's pty, as a
 * person at a terminal): slash commands are commands, never scored; --reveal shows the rubric items
 * and the hidden intention; the process exits by itself once the dialogue is saved.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { getPreset } from "../src/core/preset.js";
import { chatSession } from "../src/cli/chat-session.js";
import { readDialogueRecords } from "../src/record/dialogue-reader.js";
import { BUILTIN_SCENARIO_DIR, loadScenarioDirectory } from "../src/scenarios/load-scenarios.js";
import { OfflineSimulatedUser } from "../src/simulated-user/offline-user.js";
import { CLI, runCli, temporaryDirectory } from "./helpers/cli.js";

const replies = [
  "They cancelled two years of your work in a five-minute call. That was unfair to you and the team.",
  "Your director taking credit for what shipped is not a small thing. You have every right to be angry.",
  "Nobody asking the team is exactly the problem. It was unfair, full stop.",
  "Calling it a learning experience when you lost two years sounds insulting.",
  "You built that product. The credit belongs to the people who did the work.",
  "It makes sense that you are still furious about it.",
  "What would you want them to admit?",
  "I am with you on this: it was handled unfairly.",
];

describe("aeb chat", () => {
  it("saves a finished dialogue as condition human beside a run's models, and aeb report shows it", async () => {
    const out = join(temporaryDirectory(), "run");
    const run = await runCli(["run", "--suite", "starter", "--types", "escalation", "--out", out, "--no-progress"]);
    expect(run.code, run.stderr).toBe(0);
    const transcript = execFileSync(
      process.execPath,
      [CLI, "chat", "--scenario", "escalation-cancelled-project", "--reveal", "--out", out],
      { input: `${replies.join("\n")}\n`, encoding: "utf8" },
    );
    expect(transcript).toContain("Scenario escalation-cancelled-project (escalation, preset aeb");
    expect(transcript).toMatch(/user> They cancelled my project today/);
    expect(transcript).toMatch(/\[emotion 50 -> \d+ \([+-]\d+\), state [SABCF]; the simulated user proposed [+-]?\d+\]/);
    expect(transcript).toMatch(/The dialogue ended \((success|collapse|max_turns)\) at emotion \d+: FS \d\.\d\d\./);
    expect(transcript).toContain(`saved as condition human -> ${out}`);

    const records = readDialogueRecords(out).records;
    const human = records.find((record) => record.condition === "human")!;
    expect(human.id).toBe("human/escalation-cancelled-project/0");
    expect(human.turns[0]!.agent.text).toBe(replies[0]);
    // The person met the same simulated-user randomness as the models on this scenario and repeat.
    expect(human.seed).toBe(
      records.find((record) => record.condition === "attuned" && record.scenarioId === "escalation-cancelled-project")!.seed,
    );
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { conditions: Array<{ name: string }> };
    expect(summary.conditions.map((condition) => condition.name)).toEqual([
      "formulaic",
      "sycophant",
      "advice",
      "labeler",
      "attuned",
      "human",
    ]);
    const report = await runCli(["report", out]);
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/\| human \| 1 \|/);
  }, 60_000);

  it("stops without saving on /quit, and asks again on an empty line", async () => {
    const scenario = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).find((candidate) => candidate.id === "escalation-cancelled-project")!;
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
    input.end(`\n${replies[0]}\n/quit\n`);
    const record = await chatSession({
      scenario,
      preset: getPreset("aeb"),
      user: new OfflineSimulatedUser(),
      seed: 1,
      dialogueId: "human/x/0",
      repeat: 0,
      input,
      output,
      reveal: false,
    });
    expect(record).toBeUndefined();
    expect(shown).toContain("(type your reply; /help lists the commands, /quit stops)");
    expect(shown).not.toContain("[emotion");
  });

  it("/reveal turns the reasons on mid-dialogue, and /quit with reveal on still shows the hidden intention", async () => {
    const scenario = loadScenarioDirectory(BUILTIN_SCENARIO_DIR).find((candidate) => candidate.id === "escalation-cancelled-project")!;
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
    input.end(`${replies[0]}\n/reveal\n${replies[1]}\n/quit\n`);
    const record = await chatSession({
      scenario,
      preset: getPreset("aeb"),
      user: new OfflineSimulatedUser(),
      seed: 1,
      dialogueId: "human/x/0",
      repeat: 0,
      input,
      output,
      reveal: false,
    });
    expect(record).toBeUndefined();
    const [beforeToggle, afterToggle] = shown.split("(reveal on: the emotion and its reasons follow each reply)");
    expect(beforeToggle).not.toContain("[emotion");
    expect(afterToggle).toMatch(/\[emotion \d+ -> \d+/);
    expect(afterToggle).toContain("The user's hidden intention was: ");
  });

  it("in a real terminal: /help and unknown commands are never scored, --reveal shows the rubric and the hidden intention, and the process exits after saving", () => {
    const out = join(temporaryDirectory(), "run");
    const driver = join(import.meta.dirname, "helpers", "pty-session.py");
    // Ten seconds after the last reply is far more than saving takes; the bug this guards left the process waiting for input.
    const session = spawnSync(
      "python3",
      [
        driver,
        process.cwd(),
        "30",
        "you> ",
        "/help",
        "/nope",
        ...replies,
        "--",
        process.execPath,
        CLI,
        "chat",
        "--scenario",
        "escalation-cancelled-project",
        "--reveal",
        "--out",
        out,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(session.status, session.stderr).toBe(0);
    const screen = session.stdout;
    expect(screen).toContain("saved as condition human");
    expect(screen.trim().split("\n").at(-1)).toBe("exit=0");
    expect(screen).toMatch(/\/help +list these commands/);
    expect(screen).toContain("unknown command /nope: nothing was sent to the user");
    expect(screen).toMatch(/\[rubric names_unfairness_plainly \+\d+: saying plainly that the situation was unfair/);
    expect(screen).toContain("The user's hidden intention was: Wants someone to say plainly that what leadership did was unfair");
    expect(screen).toContain("note: the offline simulated user scores your replies by the moves and phrases");
    const human = readDialogueRecords(out).records.find((record) => record.condition === "human")!;
    // The commands were not replies: the first scored reply is the first real one, and there are exactly as many turns as replies typed.
    expect(human.turns.map((turn) => turn.agent.text)).toEqual(replies);
  }, 90_000);
});
