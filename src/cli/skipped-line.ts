import type { SkippedLine } from "../interop/sage-results.js";

/** One skipped input line for stderr: file, line number, and the reason indented under it (aeb run, import, leaderboard, agreement). */
export function describeSkippedLine(line: SkippedLine): string {
  return `skipped ${line.file} line ${line.line}: ${line.message.replace(/\n/gu, "\n    ")}`;
}
