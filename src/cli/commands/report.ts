import type { Command } from "commander";
import { resolveReference } from "../../analysis/run-summary.js";
import { RunDirectoryLock } from "../../record/lock.js";
import { writeSummaryFile } from "../../record/summary-file.js";
import { loadRunForReport, reportInputOf } from "../../report/report-input.js";
import { writeReportFiles } from "../../report/write-reports.js";

interface ReportFlags {
  recompute?: boolean;
  writeSummary?: boolean;
  reference?: string;
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description(
      "Re-render report.md and report.html of a run directory from its summary.json and dialogues.jsonl (with the later judgements of judgements.jsonl); summary.json is left as it is.",
    )
    .argument("<dir>", "run directory (made by aeb run --out DIR)")
    .option("--recompute", "recompute the summary from dialogues.jsonl instead of reading summary.json (summary.json is not changed)")
    .option("--write-summary", "recompute the summary and also overwrite summary.json with it")
    .option(
      "--reference <condition>",
      "compare every condition against this one in its own Holm family (default: the config's report.reference, else attuned when the run has it); recomputes the summary, which summary.json keeps unless --write-summary",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  aeb report runs/quick\n  aeb report runs/quick --recompute\n  aeb report runs/quick --reference advice\n",
    )
    .action(async (dir: string, flags: ReportFlags) => {
      const run = loadRunForReport(dir, {
        recompute: flags.recompute === true || flags.writeSummary === true || flags.reference !== undefined,
        ...(flags.reference !== undefined ? { reference: flags.reference } : {}),
      });
      // A name without dialogues here: the same message as a config's report.reference.
      if (flags.reference !== undefined)
        resolveReference(
          flags.reference,
          run.summary.conditions.map((condition) => condition.name),
          "--reference",
        );
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
      console.log(
        `read ${run.rows.length} dialogue(s) (${scored} scored, ${run.rows.length - scored} ended in error); summary ${run.summarySource === "recomputed" ? "recomputed from dialogues.jsonl" : "from summary.json"}${flags.writeSummary ? " and written to summary.json" : ""}`,
      );
      console.log(`wrote ${written.markdown} and ${written.html}`);
    });
}
