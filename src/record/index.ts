/** The run directory: its files, their schemas, and the one reader and writer of each (docs/output-format.md). */
export * from "./files.js";
export { scanDialogues, dialogueOf, readDialogueRecords, readDialogueRows, readScoredDialoguesById, type DialogueScanOptions, type DialogueVisitor } from "./dialogue-reader.js";
export { DialogueRecorder, surveyDialogues, writeDialogues, type RecorderRepair } from "./dialogue-recorder.js";
export { JudgementLineSchema, foldJudgementLine, readJudgements, withJudgements, type FoldedJudgements, type JudgementLine } from "./judgements.js";
export { RunManifestSchema, InvocationSchema, readManifest, describeDefiningChanges, type RunManifest, type Invocation } from "./manifest.js";
export { ProvenanceSchema, currentProvenance, type Provenance } from "./provenance.js";
export { UsageEventSchema, readUsageTotals } from "./usage-log.js";
export { readSummaryFile, savedSummary, writeSummaryFile, type SavedSummary } from "./summary-file.js";
export { loadRun, loadRunFromRows, loadRunRecords, readRunSetup, readConditionOrder, type LoadedRun, type RunSetup } from "./load-run.js";
export { RunDirectory, redactConfig, type RunDirectoryState } from "./run-directory.js";
