import { describe, expect, it } from "vitest";
import { formatDuration, RunProgress } from "./progress.js";

function recorder() {
  const lines: string[] = [];
  return { lines, stream: { write: (text: string) => lines.push(text), isTTY: false } as unknown as NodeJS.WriteStream };
}

describe("RunProgress", () => {
  it("withholds the time left until a dialogue has finished, then estimates it from the rate", () => {
    let now = 0;
    const { stream } = recorder();
    const progress = new RunProgress({ stream, mode: "lines", intervalMs: 60_000, now: () => now });
    progress.start(100);
    now = 5_000;
    expect(progress.line()).toBe("progress: 0/100 dialogues (0%), 0 error(s), time left: after the first dialogue, 5s elapsed");
    progress.tick(false);
    progress.tick(true);
    now = 10_000;
    // 2 dialogues in 10 s: 98 left at 0.2 per second.
    expect(progress.line()).toBe("progress: 2/100 dialogues (2%), 1 error(s), 0.20 dialogues/s, time left: about 8m 10s, 10s elapsed");
    progress.stop();
  });

  it("prints a plain line when it starts and when it stops, and nothing at all when off", () => {
    const on = recorder();
    const progress = new RunProgress({ stream: on.stream, mode: "lines", intervalMs: 60_000, now: () => 0 });
    progress.start(3);
    progress.tick(false);
    progress.stop();
    progress.stop();
    expect(on.lines).toEqual([
      "progress: 0/3 dialogues to run\n",
      "progress: 1/3 dialogues (33%), 0 error(s), time left: estimating, 0s elapsed\n",
    ]);
    const off = recorder();
    const silent = new RunProgress({ stream: off.stream, mode: "off", intervalMs: 10, now: () => 0 });
    silent.start(3);
    silent.tick(false);
    silent.stop();
    expect(off.lines).toEqual([]);
  });

  it("labels the bar's numbers: dialogues finished of the plan, errors, and the time left", () => {
    let now = 0;
    const progress = new RunProgress({ stream: recorder().stream, mode: "off", intervalMs: 60_000, now: () => now });
    progress.start(10);
    expect(progress.barLabel()).toBe("0/10 dialogues finished | 0 ended in error | time left: after the first dialogue");
    now = 4_000;
    progress.tick(true);
    progress.tick(false);
    expect(progress.barLabel()).toBe("2/10 dialogues finished | 1 ended in error | time left: about 16s");
  });

  it("formats durations a person reads at a glance", () => {
    expect([0, 59, 65, 3599, 7380].map(formatDuration)).toEqual(["0s", "59s", "1m 05s", "59m 59s", "2h 03m"]);
  });
});
