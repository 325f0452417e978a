/**
 * `aeb/record`: a run directory's files, their schemas, and the one reader of each, for a script
 * that reads results without the CLI (docs/output-format.md documents every file and field).
 * Writing stays with `runBenchmark`, `judgeRun` and the server, which hold the directory's lock.
 */
export {
  DIALOGUES_FILE,
  ERRORS_FILE,
  JUDGEMENTS_FILE,
  MANIFEST_FILE,
  SUMMARY_FILE,
  USAGE_LOG_FILE,
  IMPORT_MANIFEST_FILE,
  MARKDOWN_REPORT_FILE,
  HTML_REPORT_FILE,
} from "./files.js";
export { scanDialogues, readDialogueRecords, readDialogueRows, type DialogueScanOptions, type DialogueVisitor } from "./dialogue-reader.js";
export { DialogueRowStore, StoredRow } from "./dialogue-row-store.js";
export { JudgementLineSchema, readJudgements, withJudgements, type FoldedJudgements, type JudgementLine } from "./judgements.js";
export { RunManifestSchema, InvocationSchema, readManifest, type RunManifest, type Invocation } from "./manifest.js";
export { ProvenanceSchema, type Provenance } from "./provenance.js";
export { UsageEventSchema, readUsageTotals } from "./usage-log.js";
export { readSummaryFile, savedSummary, writeSummaryFile, type SavedSummary } from "./summary-file.js";
export { RunSummarySchema, type RunSummary } from "../analysis/summary-schema.js";
export { loadRun, loadRunRecords, readRunSetup, type LoadedRun, type RunSetup } from "./load-run.js";
