import type { Command } from "commander";
import { RunDirectoryLock } from "../../record/lock.js";
import { writeSummaryFile } from "../../record/summary-file.js";
import { loadRunForReport, reportInputOf } from "../../report/load-run.js";
import { writeReportFiles } from "../../report/write-reports.js";

interface ReportFlags {
  recompute?: boolean;
  writeSummary?: boolean;
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("Re-render report.md and report.html of a run directory from its summary.json and dialogues.jsonl (with the later judgements of judgements.jsonl); summary.json is left as it is.")
    .argument("<dir>", "run directory (made by aeb run --out DIR)")
    .option("--recompute", "recompute the summary from dialogues.jsonl instead of reading summary.json (summary.json is not changed)")
    .option("--write-summary", "recompute the summary and also overwrite summary.json with it")
    .addHelpText("after", "\nExamples:\n  aeb report runs/quick\n  aeb report runs/quick --recompute\n")
    .action(async (dir: string, flags: ReportFlags) => {
      const run = loadRunForReport(dir, { recompute: flags.recompute === true || flags.writeSummary === true });
      for (const note of run.readingNotes) console.error(`note: ${note}`);
      // It writes into the directory (the reports, with --write-summary the summary): never while a run, a judge or a server writes there.
      const lock = RunDirectoryLock.acquire(dir, "aeb report");
      let written: { markdown: string; html: string };
      try {
        if (flags.writeSummary) writeSummaryFile(dir, run.summary);
        written = await writeReportFiles(dir, reportInputOf(run));
      } finally {
        lock.release();
      }
      const scored = run.rows.filter((row) => row.status === "done").length;
      console.log(`read ${run.rows.length} dialogue(s) (${scored} scored, ${run.rows.length - scored} ended in error); summary ${run.summarySource === "recomputed" ? "recomputed from dialogues.jsonl" : "from summary.json"}${flags.writeSummary ? " and written to summary.json" : ""}`);
      console.log(`wrote ${written.markdown} and ${written.html}`);
    });
}
