/**
 * Every file of a run directory, by name. The run directory is AEB's contract with its users
 * (docs/output-format.md documents each file and field); nothing outside src/record/ spells
 * these names.
 */

/** One JSON object per dialogue, appended as each finishes (errored dialogues included). */
export const DIALOGUES_FILE = "dialogues.jsonl";
/** Errored dialogues set aside when a run resumes, so that they can be retried. */
export const ERRORS_FILE = "dialogues.errors.jsonl";
/** Judgements made after the dialogue was recorded (`aeb judge`, retried judge calls), one line per judged dialogue. */
export const JUDGEMENTS_FILE = "judgements.jsonl";
/** The run's manifest: the guard of what defines its results, the resolved config and provenance. */
export const MANIFEST_FILE = "run.json";
/** Per-condition results, comparisons and notes, computed from the dialogues. */
export const SUMMARY_FILE = "summary.json";
/** Model calls and HTTP requests as they happen (append-only), from which usage is counted. */
export const USAGE_LOG_FILE = "usage.jsonl";
/** The usage totals file of runs made before usage.jsonl (read, never written). */
export const LEGACY_USAGE_FILE = "usage.json";
/** Held while a process writes into the directory. */
export const LOCK_FILE = ".aeb.lock";
/** What `aeb import` read, beside the dialogues it wrote. */
export const IMPORT_MANIFEST_FILE = "import.json";
export const MARKDOWN_REPORT_FILE = "report.md";
export const HTML_REPORT_FILE = "report.html";
