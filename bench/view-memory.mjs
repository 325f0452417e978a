/* global performance, fetch, URL */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
// Peak RSS of `aeb view DIR` while it serves what a reader asks first (BENCHMARKS.md section 2).
// Usage: node bench/view-memory.mjs RUN_DIR REPO_ROOT [full|tables]  (tables: skip the report page and charts)
const root = process.argv[3];
const skipReport = process.argv[4] === "tables";
const rssFile = `${tmpdir()}/aeb-view-maxrss-${process.pid}.json`;
const t0 = performance.now();
const child = spawn(
  process.execPath,
  ["--import", `${root}/bench/max-rss.mjs`, `${root}/dist/cli/main.js`, "view", process.argv[2], "--port", "0"],
  { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, AEB_BENCH_MAXRSS_FILE: rssFile } },
);
const rss = () => Number(readFileSync(`/proc/${child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) / 1024;
let out = "";
const url = await new Promise((resolve) =>
  child.stdout.on("data", (c) => {
    out += c;
    const m = /open (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  }),
);
console.log(
  `listening after ${((performance.now() - t0) / 1000).toFixed(1)} s, rss ${rss().toFixed(0)} MB; ${out.trim().split("\n").join(" | ")}`,
);
let t = performance.now();
if (!skipReport) {
  const page = await (await fetch(`${url}api/runs/0/report`)).json();
  console.log(`report page ${((performance.now() - t) / 1000).toFixed(1)} s, rss ${rss().toFixed(0)} MB`);
  t = performance.now();
  let bytes = 0;
  for (const chart of page.charts) {
    const r = await fetch(new URL(chart.url, url));
    bytes += (await r.text()).length;
    if (!r.ok) throw new Error(chart.url);
  }
  console.log(
    `six charts ${((performance.now() - t) / 1000).toFixed(1)} s (${(bytes / 2 ** 20).toFixed(2)} MB of SVG), rss ${rss().toFixed(0)} MB`,
  );
}
t = performance.now();
const first = await (await fetch(`${url}api/dialogues`)).json();
const filtered = await (await fetch(`${url}api/dialogues?condition=attuned&type=escalation&emotionOf=lowest&emotionMax=40&sort=fs`)).json();
console.log(
  `first page + filtered page ${((performance.now() - t) / 1000).toFixed(2)} s (${first.total} / ${filtered.total}), rss ${rss().toFixed(0)} MB`,
);
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
console.log(
  `peak RSS ${(JSON.parse(readFileSync(rssFile, "utf8")).maxRssKiB / 1024).toFixed(0)} MB; total ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
