import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { RunDirectoryError } from "../../core/errors.js";
import { loadRun } from "../../record/load-run.js";
import { exportRunTable, type ExportFormat } from "../../report/export-table.js";

function exportFormat(value: string): ExportFormat {
  if (value !== "csv" && value !== "parquet") throw new InvalidArgumentError(`expected csv or parquet, got "${value}"`);
  return value;
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description("Write a run directory as a flat table for spreadsheets and dataframes: one row per dialogue (numbers: outcome, FS, HID, ECS per judge, lengths, flags), or with --turns one row per turn (texts, emotion, change, adjustments, flags, judges' predictions).")
    .argument("<dir>", "run directory")
    .option("--format <format>", "csv or parquet", exportFormat, "csv" as ExportFormat)
    .option("--turns", "one row per turn instead of one per dialogue")
    .option("-o, --out <file>", "where to write (default: DIR/dialogues.csv, DIR/turns.parquet...)")
    .addHelpText("after", "\nExamples:\n  aeb export runs/quick                      runs/quick/dialogues.csv\n  aeb export runs/quick --turns --format parquet\n")
    .action((dir: string, flags: { format: ExportFormat; turns?: boolean; out?: string }) => {
      // Reads the directory as the reports do: a missing or empty run is named here.
      const run = loadRun(dir);
      for (const note of run.readingNotes) console.error(`note: ${note}`);
      const grain = flags.turns === true ? "turns" : "dialogues";
      const file = flags.out ?? join(dir, `${grain}.${flags.format}`);
      let written: { rows: number; columns: string[] };
      try {
        written = exportRunTable(dir, { format: flags.format, grain, file });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== undefined) throw new RunDirectoryError(`cannot write ${file}: ${(error as Error).message}`);
        throw error;
      }
      console.log(`wrote ${written.rows} row(s) x ${written.columns.length} column(s) -> ${file}`);
    });
}
