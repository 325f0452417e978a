// Preloaded into a measured process (`node --import ./bench/max-rss.mjs ...`): at exit it writes
// the process's peak resident set size (getrusage ru_maxrss, via process.resourceUsage().maxRSS,
// in KiB) and its CPU time to the file named by AEB_BENCH_MAXRSS_FILE. Used by bench/scale.ts on
// `aeb run` child processes; it changes nothing else.
import { writeFileSync } from "node:fs";
import process from "node:process";

const file = process.env.AEB_BENCH_MAXRSS_FILE;
if (file) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssKiB: usage.maxRSS, userCpuUs: usage.userCPUTime, systemCpuUs: usage.systemCPUTime }));
  });
}
