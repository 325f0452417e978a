import type { ConditionSummary, MeanWithCI } from "../metrics/condition-summary.js";

/** Number formatting shared by the terminal table and the reports. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}

export function withCI(value: MeanWithCI | null, digits = 3): string {
  if (value === null) return "n/a";
  if (value.ci95 === null) return `${fixed(value.mean, digits)} (n too small for CI)`;
  return `${fixed(value.mean, digits)} [${fixed(value.ci95[0], digits)}, ${fixed(value.ci95[1], digits)}]`;
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/** The paper's headline table: per condition FS, collapse rate, HID, ECS, reply length. */
export function headlineRows(conditions: readonly ConditionSummary[]): string[][] {
  return conditions.map((condition) => [
    condition.name,
    String(condition.n),
    withCI(condition.fs),
    percent(condition.collapseRate),
    withCI(condition.hid),
    withCI(condition.ecs),
    fixed(condition.meanReplyChars, 0),
    String(condition.errors),
  ]);
}

export const HEADLINE_HEADER = ["condition", "n", "FS [95% CI]", "collapse", "HID", "ECS", "reply chars", "errors"];

/** A plain-text table with aligned columns, for terminals. */
export function textTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((cell, column) => Math.max([...cell].length, ...rows.map((row) => [...(row[column] ?? "")].length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

/** A markdown table; cell text is escaped so transcript text cannot break the table. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const escape = (cell: string) => cell.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  return [
    `| ${header.map(escape).join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(escape).join(" | ")} |`),
  ].join("\n");
}
