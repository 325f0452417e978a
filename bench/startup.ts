/**
 * Fixed cost of a CLI invocation (`npm run bench:startup`): wall time and peak RSS of `aeb --version`
 * and `aeb scenarios list` against a bare `node -e ""`, interleaved, medians of N runs. The bare node
 * start is the floor; the ratio to it is what the CLI adds.
 */
import { spawnSync } from "node:child_process";
import { CLI, machine, median } from "./common.js";

const runs = Number(process.argv[2] ?? 15);
const cases: Array<{ name: string; args: string[] }> = [
  { name: "node -e ''", args: ["-e", ""] },
  { name: "aeb --version", args: [CLI, "--version"] },
  { name: "aeb scenarios list", args: [CLI, "scenarios", "list"] },
];

const samples = new Map(cases.map((entry) => [entry.name, { wall: [] as number[], rss: [] as number[] }]));
for (let round = 0; round < runs; round += 1) {
  for (const entry of cases) {
    // /usr/bin/time reports the child's own peak RSS; wall is measured around it.
    const start = process.hrtime.bigint();
    const child = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...entry.args], { encoding: "utf8" });
    const wall = Number(process.hrtime.bigint() - start) / 1e9;
    if (child.status !== 0) throw new Error(`${entry.name} failed: ${child.stderr}`);
    const rssKb = Number(child.stderr.trim().split("\n").at(-1));
    samples.get(entry.name)?.wall.push(wall);
    samples.get(entry.name)?.rss.push(rssKb / 1024);
  }
}

const floor = median(samples.get(cases[0]!.name)!.wall);
console.log(JSON.stringify({ machine: machine(), runs }));
console.log("case                 wall median (s)  x bare node  peak RSS median (MB)");
for (const entry of cases) {
  const { wall, rss } = samples.get(entry.name)!;
  const w = median(wall);
  console.log(
    `${entry.name.padEnd(20)} ${w.toFixed(3).padStart(15)}  ${(w / floor).toFixed(2).padStart(11)}  ${median(rss).toFixed(0).padStart(20)}`,
  );
}
