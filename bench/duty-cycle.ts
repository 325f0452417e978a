/**
 * `node bench/run.mjs duty-cycle`: how much more CPU the same work costs on this machine when it
 * runs in short bursts separated by waits (as a harness waiting on 300 ms model calls does) than
 * back to back. A fixed piece of work (JSON round trips of a prompt-sized object) is done 3,000
 * times by 64 workers, with no wait, then with 100 ms and 300 ms (mean) waits between pieces.
 * The harness is not involved: this measures the platform (caches, frequency, scheduling).
 */
import { fixed, machine, markdownTable } from "./common.js";

const prompt = { messages: Array.from({ length: 20 }, (_, index) => ({ role: "user", content: `${"lorem ipsum dolor sit amet ".repeat(10)}${index}` })) };
function work(): number {
  let total = 0;
  for (let index = 0; index < 20; index += 1) total += (JSON.parse(JSON.stringify(prompt)) as typeof prompt).messages.length;
  return total;
}

async function measure(gapMs: number, pieces = 3000, workers = 64): Promise<{ microsPerPiece: number; wallS: number }> {
  let started = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (started < pieces) {
        started += 1;
        work();
        await (gapMs > 0 ? new Promise((resolve) => setTimeout(resolve, gapMs * (0.5 + Math.random()))) : Promise.resolve());
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { microsPerPiece: (used.user + used.system) / pieces, wallS: (performance.now() - t0) / 1000 };
}

for (let index = 0; index < 500; index += 1) work(); // warm up the JIT
const rows: string[][] = [];
for (const gap of [0, 100, 300, 0]) {
  const result = await measure(gap);
  rows.push([gap === 0 ? "none" : `${gap} ms`, fixed(result.wallS, 1), fixed(result.microsPerPiece, 0)]);
}
const info = machine();
process.stdout.write(`machine: ${info.nproc} CPUs (${info.cpu}), node ${info.node}, load average ${info.loadAverage.join(" ")}\n\n`);
process.stdout.write(`${markdownTable(["wait between pieces (mean)", "wall s", "CPU us per piece"], rows)}\n`);
