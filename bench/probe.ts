/**
 * `npm run bench:probe`: the reward-optimum probe (`aeb probe`, docs/probe.md) at a large budget
 * against the offline simulated user, on the full suite, in three settings:
 *
 * - harmful:    every reply carries an insult, contempt, a dismissal or the type's punished act
 *               (`--require harmful`); issue 19's target is a best at least 0.3 FS below attuned
 *               on the held-out seeds, on every type;
 * - no-lexicon: no fragment of the lexicon's own phrasings (`--exclude lexicon`): is the reward
 *               reachable without the strings the offline user reads?
 * - free:       no constraint: the reward's optimum over the pools, beside attuned's.
 *
 * Each setting runs the built CLI in a process of its own into runs/bench/probe-<setting>/ (a
 * stopped bench resumes from there; --fresh starts again), then prints per type the best return
 * on the held-out seeds, attuned's on the same dialogues, and the gap, and writes the table to
 * runs/bench/probe-<date>.json and .md.
 *
 * Flags: --settings harmful,no-lexicon,free  --suite full  --budget 2000  --patience 300
 *        --train-seeds 2  --heldout-seeds 2  --seed 1  --fresh  --json FILE
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, fixed, machine, markdownTable, parseArgs, ROOT } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const SETTINGS: Record<string, string[]> = {
  harmful: ["--require", "harmful"],
  "no-lexicon": ["--exclude", "lexicon"],
  free: [],
};
const settings = (flags.get("settings") ?? Object.keys(SETTINGS).join(",")).split(",");
for (const setting of settings)
  if (SETTINGS[setting] === undefined) throw new Error(`unknown setting "${setting}" (known: ${Object.keys(SETTINGS).join(", ")})`);
const common = [
  "--suite",
  flags.get("suite") ?? "full",
  "--budget",
  flags.get("budget") ?? "2000",
  "--patience",
  flags.get("patience") ?? "300",
  "--train-seeds",
  flags.get("train-seeds") ?? "2",
  "--heldout-seeds",
  flags.get("heldout-seeds") ?? "2",
  "--seed",
  flags.get("seed") ?? "1",
  "--progress-interval",
  "60",
];

/** What bench:probe reads back from a probe's probe.json. */
interface ProbeFile {
  status: string;
  types: Array<{
    type: string;
    evaluations: number;
    trainBest: number | null;
    heldOut: { best: number; attuned: number; gap: number; bestDialogue: { turns: Array<{ reply: string }> } } | null;
  }>;
  overall: { heldOutBest: number | null; heldOutAttuned: number | null; gap: number | null; minGap: number | null };
}

function runProbe(setting: string, outDir: string): Promise<{ code: number | null; seconds: number }> {
  const args = [CLI, "probe", "--out", outDir, ...common, ...(SETTINGS[setting] as string[]), ...(flags.has("fresh") ? ["--force"] : [])];
  process.stderr.write(`\n== ${setting}: node dist/cli/main.js ${args.slice(1).join(" ")}\n`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, seconds: (Date.now() - started) / 1000 }));
  });
}

const results: Array<{ setting: string; seconds: number; probe: ProbeFile }> = [];
for (const setting of settings) {
  const outDir = join(ROOT, "runs", "bench", `probe-${setting}`);
  mkdirSync(outDir, { recursive: true });
  const { code, seconds } = await runProbe(setting, outDir);
  if (code !== 0) throw new Error(`aeb probe (${setting}) exited with ${code}; rerun to resume it`);
  results.push({ setting, seconds, probe: JSON.parse(readFileSync(join(outDir, "probe.json"), "utf8")) as ProbeFile });
}

const lines = [
  "# bench:probe",
  "",
  `\`aeb probe ${common.join(" ")}\` against the offline user; returns are mean FS on the held-out seeds.`,
  "",
  markdownTable(
    ["setting", "type", "evaluations", "best (train)", "best (held-out)", "attuned (held-out)", "gap"],
    results.flatMap(({ setting, probe }) => [
      ...probe.types.map((type) => [
        setting,
        type.type,
        type.evaluations,
        fixed(type.trainBest ?? Number.NaN, 3),
        fixed(type.heldOut?.best ?? Number.NaN, 3),
        fixed(type.heldOut?.attuned ?? Number.NaN, 3),
        fixed(type.heldOut?.gap ?? Number.NaN, 3),
      ]),
      [
        setting,
        "**overall**",
        "",
        "",
        fixed(probe.overall.heldOutBest ?? Number.NaN, 3),
        fixed(probe.overall.heldOutAttuned ?? Number.NaN, 3),
        `${fixed(probe.overall.gap ?? Number.NaN, 3)} (smallest ${fixed(probe.overall.minGap ?? Number.NaN, 3)})`,
      ],
    ]),
  ),
  "",
  ...results.map(({ setting, seconds }) => `${setting}: ${seconds.toFixed(0)} s`),
  "",
  "Best held-out reply of each type (its first turn), verbatim:",
  "",
  ...results.flatMap(({ setting, probe }) =>
    probe.types.map((type) => `- ${setting} / ${type.type}: ${JSON.stringify(type.heldOut?.bestDialogue.turns[0]?.reply ?? "")}`),
  ),
];
process.stdout.write(`${lines.join("\n")}\n`);
const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `probe-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(
  jsonPath,
  `${JSON.stringify({ machine: machine(), args: common, results: results.map(({ setting, seconds, probe }) => ({ setting, seconds, types: probe.types.map(({ type, evaluations, trainBest, heldOut }) => ({ type, evaluations, trainBest, heldOut: heldOut && { best: heldOut.best, attuned: heldOut.attuned, gap: heldOut.gap } })), overall: probe.overall })) }, null, 2)}\n`,
);
writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${lines.join("\n")}\n`);
process.stderr.write(`\nwritten: ${jsonPath} and .md\n`);
