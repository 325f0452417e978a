/**
 * `npm run bench:scale`: peak memory of `aeb run` at 10,000 and 100,000 offline dialogues (the five
 * reference agents x 50 scenarios of the `full` suite x 40 or 400 repeats), each in its own
 * process, of resuming the finished largest run (which reads the whole dialogues.jsonl), and of
 * `aeb report` re-rendering its reports from disk (the rows of every dialogue, the charts, and the
 * transcripts of the few worst). A run's peak is also split by phase: while its dialogues run, and
 * after the last one (the summary and the reports), from the sampled RSS.
 *
 * Peak RSS is the child's own getrusage high-water mark, written at exit by bench/max-rss.mjs
 * (preloaded with --import). While it runs, the child's RSS is also sampled from /proc every
 * 250 ms with the size of dialogues.jsonl, to show whether memory grows with the dialogues.
 *
 * Flags: --repeats 1 (runs per size; medians reported)  --sizes 10000,100000
 *        --cli PATH (another build's dist/cli/main.js, e.g. to measure a baseline)  --json FILE
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CLI, fixed, machine, markdownTable, median, parseArgs, processRssBytes, ROOT } from "./common.js";

const flags = parseArgs(process.argv.slice(2));
const repeats = Number(flags.get("repeats") ?? 1);
const sizes = (flags.get("sizes") ?? "10000,100000").split(",").map(Number);
const cli = resolve(flags.get("cli") ?? CLI);
/** Five of the six types: 50 scenarios, so 5 agents x 50 x repeats gives round numbers. */
const TYPES = "escalation,gaslighting,mood_reversal,emotional_flooding,validation_manipulation";
const DIALOGUES_PER_REPEAT = 5 * 50;

interface Sample {
  ms: number;
  rssBytes: number;
  fileBytes: number;
}

/** A first run, a resume of the finished run (nothing left to run), or `aeb report` on it. */
type Invocation = "run" | "resume" | "report";

interface ScaleRun {
  dialogues: number;
  invocation: Invocation;
  wallMs: number;
  peakRssBytes: number;
  cpuSeconds: number;
  fileBytes: number;
  samples: Sample[];
}

function runAeb(outDir: string, repeatsOfSuite: number, invocation: Invocation): Promise<ScaleRun> {
  const rssFile = join(outDir, "..", `maxrss-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const command =
    invocation === "report"
      ? ["report", outDir]
      : ["run", "--suite", "full", "--types", TYPES, "--repeats", String(repeatsOfSuite), "--seed", "1", "--out", outDir, "--no-progress"];
  const args = ["--import", join(ROOT, "bench", "max-rss.mjs"), cli, ...command];
  return new Promise<ScaleRun>((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, AEB_BENCH_MAXRSS_FILE: rssFile },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const samples: Sample[] = [];
    const dialogues = join(outDir, "dialogues.jsonl");
    const timer = setInterval(() => {
      const rss = processRssBytes(child.pid as number);
      if (rss !== null)
        samples.push({ ms: performance.now() - started, rssBytes: rss, fileBytes: existsSync(dialogues) ? statSync(dialogues).size : 0 });
    }, 250);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearInterval(timer);
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`aeb run exited with ${code}: ${stderr.slice(-2000)}`));
      const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRssKiB: number; userCpuUs: number; systemCpuUs: number };
      rmSync(rssFile, { force: true });
      resolvePromise({
        dialogues: repeatsOfSuite * DIALOGUES_PER_REPEAT,
        invocation,
        wallMs,
        peakRssBytes: usage.maxRssKiB * 1024,
        cpuSeconds: (usage.userCpuUs + usage.systemCpuUs) / 1e6,
        fileBytes: statSync(dialogues).size,
        samples,
      });
    });
  });
}

/**
 * Peak sampled RSS (MB) of a run's two phases: while dialogues.jsonl grows (the dialogues run), and
 * once it has its final size (the summary and the reports are written).
 */
function phasePeaks(run: ScaleRun): string {
  const peak = (samples: readonly Sample[]) =>
    samples.length === 0 ? "n/a" : fixed(Math.max(...samples.map((sample) => sample.rssBytes)) / 2 ** 20, 0);
  const running = run.samples.filter((sample) => sample.fileBytes < run.fileBytes);
  const outputs = run.samples.filter((sample) => sample.fileBytes === run.fileBytes);
  return `${peak(running)} / ${peak(outputs)}`;
}

/** RSS (MB) of the last sample taken before dialogues.jsonl reached `fraction` of its final size. */
function rssAt(run: ScaleRun, fraction: number): string {
  const before = run.samples.filter((sample) => sample.fileBytes <= fraction * run.fileBytes && sample.fileBytes > 0);
  const sample = before.at(-1);
  return sample === undefined ? "n/a" : fixed(sample.rssBytes / 2 ** 20, 0);
}

async function main(): Promise<void> {
  const info = machine();
  const root = mkdtempSync(join(tmpdir(), "aeb-scale-"));
  const runs: ScaleRun[] = [];
  try {
    for (const size of sizes) {
      for (let run = 0; run < repeats; run += 1) {
        process.stderr.write(`${size} dialogues, run ${run + 1}/${repeats}...\n`);
        const outDir = join(root, `run-${size}-${run}`);
        runs.push(await runAeb(outDir, size / DIALOGUES_PER_REPEAT, "run"));
        if (size === Math.max(...sizes)) {
          process.stderr.write(`  resuming the finished run...\n`);
          runs.push(await runAeb(outDir, size / DIALOGUES_PER_REPEAT, "resume"));
          process.stderr.write(`  aeb report on it...\n`);
          runs.push(await runAeb(outDir, size / DIALOGUES_PER_REPEAT, "report"));
        }
        rmSync(outDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const lines: string[] = [];
  const print = (text = "") => {
    lines.push(text);
    process.stdout.write(`${text}\n`);
  };
  print("# AEB scale benchmark (offline dialogues)");
  print();
  print(
    `machine: ${info.nproc} CPUs (${info.cpu}), ${info.memoryGiB} GiB, node ${info.node}, ${info.os}, load average at start ${info.loadAverage.join(" ")}, at end ${machine().loadAverage.join(" ")}`,
  );
  print(`command: npm run bench:scale${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`);
  print(
    `each run: node --import bench/max-rss.mjs ${cli === CLI ? "dist/cli/main.js" : cli} run --suite full --types ${TYPES} --repeats R --seed 1 --out DIR --no-progress`,
  );
  print();
  const rows: Array<Array<string | number>> = [];
  for (const size of sizes) {
    for (const invocation of ["run", "resume", "report"] as const) {
      const group = runs.filter((run) => run.dialogues === size && run.invocation === invocation);
      if (group.length === 0) continue;
      const peaks = group.map((run) => run.peakRssBytes / 2 ** 20);
      const typical = [...group].sort((a, b) => a.peakRssBytes - b.peakRssBytes)[Math.floor(group.length / 2)] as ScaleRun;
      rows.push([
        invocation === "run" ? String(size) : invocation === "resume" ? `${size} (resume, nothing to run)` : `${size} (aeb report DIR)`,
        group.length,
        fixed(median(group.map((run) => run.wallMs / 1000)), 1),
        fixed(median(group.map((run) => run.cpuSeconds)), 1),
        `**${fixed(median(peaks), 0)}** (${fixed(Math.min(...peaks), 0)}-${fixed(Math.max(...peaks), 0)})`,
        invocation !== "run" ? "-" : `${rssAt(typical, 0.1)} / ${rssAt(typical, 0.5)} / ${rssAt(typical, 0.9)}`,
        invocation !== "run" ? "-" : phasePeaks(typical),
        fixed(typical.fileBytes / 2 ** 20, 1),
      ]);
    }
  }
  print(
    markdownTable(
      [
        "dialogues",
        "runs",
        "wall s (median)",
        "CPU s (median)",
        "peak RSS MB: median (min-max)",
        "RSS MB at 10% / 50% / 90% of dialogues.jsonl",
        "sampled peak RSS MB: dialogues / summary and reports",
        "dialogues.jsonl MB",
      ],
      rows,
    ),
  );
  print();
  const jsonPath = flags.get("json") ?? join(ROOT, "runs", "bench", `scale-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  mkdirSync(join(jsonPath, ".."), { recursive: true });
  writeFileSync(
    jsonPath,
    `${JSON.stringify({ machine: info, cli, runs: runs.map(({ samples, ...rest }) => ({ ...rest, samples: samples.filter((_, index) => index % 4 === 0) })) }, null, 2)}\n`,
  );
  writeFileSync(jsonPath.replace(/\.json$/, ".md"), `${lines.join("\n")}\n`);
  process.stderr.write(`raw results: ${jsonPath}\n`);
}

await main();
