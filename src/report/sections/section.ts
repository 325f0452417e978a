/**
 * A report section as data: what both renderers lay out (markdown-report.ts, html-report.ts),
 * each by the kind of its parts, never by the section's name.
 */
import type { DialogueRecord } from "../../core/dialogue.js";
import type { SafeHtml } from "../html.js";
import type { ReportReading } from "../report-reading.js";

export interface Table {
  header: string[];
  rows: string[][];
}

/** One part of a section. */
export type SectionPart =
  | {
      kind: "table";
      table: Table;
      /** A heading over the table (one table of several, e.g. one per ECS judge). */
      title?: string;
      /** In the page, columns from this one on are numbers (right-aligned), but the last `trailingText`; default 1 and 0. */
      textColumns?: number;
      trailingText?: number;
      /** A compact table of a long series (the comparisons): open is shown, folded is one summary line until opened. */
      fold?: "open" | "folded";
    }
  /** Label-value pairs (the procedure): a two-column table in markdown, a definition list in the page. */
  | { kind: "entries"; header: [string, string]; entries: Array<[string, string]> }
  /** A sentence from the record or about it; `only` keeps it to one report (the page says it in its own prose). */
  | { kind: "note"; text: string; only?: "markdown" }
  /** The page's own explanation of a table (what its columns mean), written as HTML; report.md leaves it out. */
  | { kind: "page-note"; html: SafeHtml }
  /** A bulleted list, or the `empty` sentence when it has no item. */
  | { kind: "list"; items: string[]; empty: string }
  /** The run's charts (charts/index.ts), drawn by the page only. */
  | { kind: "charts" }
  /** Whole dialogues by condition: transcripts in the page, one line each in markdown; `empty` when there is none. */
  | { kind: "dialogues"; groups: Array<{ condition: string; dialogues: DialogueRecord[] }>; empty: string };

export interface ReportSection {
  /** The page's anchor (`<section id>`) and the name tests and the viewer find the section by. */
  id: string;
  /** Its heading. */
  title: string;
  /** Its link in the page's navigation. */
  navLabel: string;
  /**
   * Its parts, line by line as the page lays them out (the parts of one line side by side; an
   * empty line stays, so the page keeps its layout); markdown shows them one after another. A
   * section with no part is not shown (an optional one: no HID judge, no error, no model call).
   */
  lines: SectionPart[][];
}

/** A section of the report, made from the one reading of the record. */
export type SectionBuilder = (reading: ReportReading) => ReportSection;

/** Whether a section has anything to show. */
export function isShown(section: ReportSection): boolean {
  return section.lines.some((line) => line.length > 0);
}

/** A note part, or no part when there is no note. */
export function noteParts(text: string | null): SectionPart[] {
  return text === null ? [] : [{ kind: "note", text }];
}
