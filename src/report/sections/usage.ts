import type { UsageEntry } from "../../analysis/summary-schema.js";
import { html } from "../html.js";
import type { ReportReading } from "../report-reading.js";
import type { ReportSection, Table } from "./section.js";

type Counter = "calls" | "cachedCalls" | "failedCalls" | "requests" | "retries" | "promptTokens" | "completionTokens";
const COUNTERS: Counter[] = ["calls", "cachedCalls", "failedCalls", "requests", "retries", "promptTokens", "completionTokens"];

/** Token usage per model role, with a total row when there are several; null when summary.json has none (offline runs). */
export function usageTable(entries: readonly UsageEntry[] | undefined): Table | null {
  if (entries === undefined || entries.length === 0) return null;
  const total = (counter: Counter) => String(entries.reduce((sum, entry) => sum + entry[counter], 0));
  return {
    header: ["role", "model", "calls", "cached", "failed", "requests", "retries", "prompt tokens", "completion tokens"],
    rows: [
      ...entries.map((entry) => [entry.role, entry.model, ...COUNTERS.map((counter) => String(entry[counter]))]),
      ...(entries.length > 1 ? [["total", "", ...COUNTERS.map(total)]] : []),
    ],
  };
}

/** Shown only for runs with model calls. */
export function usageSection(reading: ReportReading): ReportSection {
  const table = usageTable(reading.summary.usage);
  const legend = html`Per model role, over every invocation on this run directory. Calls: answered by a server; cached: answered from the response cache (no tokens); failed: ended in error after retries; requests: HTTP attempts including retries. Tokens count successful, non-cached calls only.`;
  return {
    id: "usage",
    title: "Token usage",
    navLabel: "Token usage",
    lines: table === null ? [] : [[{ kind: "table", table, textColumns: 2 }], [{ kind: "page-note", html: legend }], []],
  };
}
