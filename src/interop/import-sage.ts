import { existsSync } from "node:fs";
import { writeFileAtomic } from "../record/atomic-file.js";
import { join } from "node:path";
import { summariseRun } from "../analysis/run-summary.js";
import type { RunSummary } from "../analysis/summary-schema.js";
import type { DialogueRecord } from "../core/dialogue.js";
import { RunDirectoryError } from "../core/errors.js";
import { dialogueRow } from "../metrics/dialogue-row.js";
import { writeDialogues } from "../record/dialogue-recorder.js";
import { DIALOGUES_FILE, IMPORT_MANIFEST_FILE, MANIFEST_FILE } from "../record/files.js";
import { RunDirectoryLock } from "../record/lock.js";
import { ensureWritableDirectory } from "../record/run-directory.js";
import { writeSummaryFile } from "../record/summary-file.js";
import { reportInputOfRecords } from "../report/report-model.js";
import { writeReportFiles } from "../report/write-reports.js";
import { readSageResultFile, SageImportError, type SageResultFile } from "./sage-results.js";
import { withOfflineEcs } from "./offline-ecs.js";
import { simulatorOfSageFolder, type ImportManifest } from "./simulated-users.js";

export { IMPORT_MANIFEST_FILE } from "../record/files.js";

/** The bootstrap seed of an imported summary (there is no run seed). */
export const IMPORT_SUMMARY_SEED = 1;

export interface SageImportResult {
  files: SageResultFile[];
  /** The imported dialogues as written (with the offline ECS judge's scores unless `judge: false`). */
  records: DialogueRecord[];
  summary: RunSummary;
  outDir: string;
}

/**
 * Imports SAGE result files into `outDir` as an AEB results directory: `dialogues.jsonl` (one
 * condition per file), `summary.json`, `report.md` and `report.html` scored by this project's metrics, and
 * `import.json` (which files, how many lines skipped, which simulated user scored each: `simulator`,
 * else the file's folder, see interop/simulated-users.ts). Invalid lines are skipped and reported
 * in the result; with `strict` any invalid line fails the import before anything is written.
 * An existing `dialogues.jsonl` is replaced only with `force`; a directory of `aeb run` is refused.
 */
export async function importSageResults(
  paths: readonly string[],
  outDir: string,
  options: { strict?: boolean; force?: boolean; judge?: boolean; simulator?: string } = {},
): Promise<SageImportResult> {
  if (paths.length === 0) throw new SageImportError("no SAGE result file given");
  const files = paths.map((path) => readSageResultFile(path));
  const byCondition = new Map<string, string>();
  for (const file of files) {
    const previous = byCondition.get(file.condition);
    if (previous !== undefined)
      throw new SageImportError(`${file.file} and ${previous} would both become condition "${file.condition}"; rename one`);
    byCondition.set(file.condition, file.file);
  }
  const skipped = files.flatMap((file) => file.skipped);
  if (options.strict === true && skipped.length > 0) {
    const shown = skipped.slice(0, 5).map((line) => `${line.file} line ${line.line}: ${line.message}`);
    throw new SageImportError(`${shown.join("\n")}\n${skipped.length} invalid line(s); nothing imported (--strict)`);
  }
  for (const file of files)
    if (file.records.length === 0) throw new SageImportError(`${file.file} has no valid dialogue (${file.skipped.length} invalid line(s))`);

  ensureWritableDirectory(outDir);
  // Locked like every writer of a run directory: never while another process writes there.
  const lock = RunDirectoryLock.acquire(outDir, "aeb import sage");
  try {
    return await importInto(outDir, files, options);
  } finally {
    lock.release();
  }
}

async function importInto(
  outDir: string,
  files: ReturnType<typeof readSageResultFile>[],
  options: { force?: boolean; judge?: boolean; simulator?: string },
): Promise<SageImportResult> {
  if (existsSync(join(outDir, MANIFEST_FILE)))
    throw new RunDirectoryError(`${outDir} holds a run of \`aeb run\` (${MANIFEST_FILE}); import into another directory`);
  if (existsSync(join(outDir, DIALOGUES_FILE)) && options.force !== true) {
    throw new RunDirectoryError(`${outDir} already has ${DIALOGUES_FILE}; use --force to replace it, or choose another --out`);
  }
  // Scored with this project's ECS too: the offline lexicon judge, unless asked not to.
  const records: DialogueRecord[] =
    options.judge === false ? files.flatMap((file) => file.records) : await withOfflineEcs(files.flatMap((file) => file.records));
  writeDialogues(outDir, records);
  const summary = summariseRun(records.map(dialogueRow), {
    conditionOrder: files.map((file) => file.condition),
    seed: IMPORT_SUMMARY_SEED,
    repeats: 1,
  });
  await writeReportFiles(outDir, reportInputOfRecords(writeSummaryFile(outDir, summary), records));
  const manifest: ImportManifest = {
    format: 1,
    source: "sage-results",
    files: files.map((file) => ({
      file: file.file,
      condition: file.condition,
      dialogues: file.records.length,
      skippedLines: file.skipped.map((line) => line.line),
      simulator: options.simulator ?? simulatorOfSageFolder(file.file),
      simulatorFrom: options.simulator === undefined ? "folder" : "flag",
    })),
  };
  writeFileAtomic(join(outDir, IMPORT_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { files, records, summary, outDir };
}
