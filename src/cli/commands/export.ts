import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { loadRun } from "../../record/load-run.js";
import { exportRunTable, type ExportFormat } from "../../report/export-table.js";

function exportFormat(value: string): ExportFormat {
  if (value !== "csv" && value !== "parquet") throw new InvalidArgumentError(`expected csv or parquet, got "${value}"`);
  return value;
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description(
      "Write a run directory as a flat table for spreadsheets and dataframes: one row per dialogue (numbers: outcome, FS, HID, ECS per judge, lengths, flags), or with --turns one row per turn (texts, emotion, change, adjustments, flags, judges' predictions).",
    )
    .argument("<dir>", "run directory")
    .option("--format <format>", "csv or parquet", exportFormat, "csv" as ExportFormat)
    .option("--turns", "one row per turn instead of one per dialogue")
    .option("-o, --out <file>", "where to write (default: DIR/dialogues.csv, DIR/turns.parquet...)")
    .option(
      "--raw-csv",
      "write CSV text cells as they are: by default a cell a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return) gets a ' before it",
    )
    .addHelpText(
      "after",
      "\nCSV opens safely in a spreadsheet: a reply such as =HYPERLINK(...) is written '=HYPERLINK(...) (text, not a formula); programs that need the exact text read Parquet, or pass --raw-csv.\n\nExamples:\n  aeb export runs/quick                      runs/quick/dialogues.csv\n  aeb export runs/quick --turns --format parquet\n",
    )
    .action((dir: string, flags: { format: ExportFormat; turns?: boolean; out?: string; rawCsv?: boolean }) => {
      // Reads the directory as the reports do: a missing or empty run is named here.
      const run = loadRun(dir);
      for (const note of run.readingNotes) console.error(`note: ${note}`);
      const grain = flags.turns === true ? "turns" : "dialogues";
      const file = flags.out ?? join(dir, `${grain}.${flags.format}`);
      if (flags.rawCsv === true && flags.format !== "csv")
        throw new ConfigError("--raw-csv applies to --format csv only (Parquet keeps every text as it is)");
      // A file that cannot be written (a full disk, a missing folder) is named by FileWriteError, and no half table is left.
      const written = exportRunTable(dir, { format: flags.format, grain, file, rawCsv: flags.rawCsv === true });
      console.log(`wrote ${written.rows} row(s) x ${written.columns.length} column(s) -> ${file}`);
    });
}
