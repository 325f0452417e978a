import type { ConditionSummary, MeanWithCI } from "../analysis/condition-summary.js";

/** Number formatting shared by the terminal table and the reports. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}

export function withCI(value: MeanWithCI | { mean: number | null; ci95: [number, number] | null } | null, digits = 3): string {
  if (value === null) return "n/a";
  if (value.ci95 === null) return `${fixed(value.mean, digits)} (n too small for CI)`;
  return `${fixed(value.mean, digits)} [${fixed(value.ci95[0], digits)}, ${fixed(value.ci95[1], digits)}]`;
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/** Whether reply lengths were counted in tokens too (a tokenizer was set): adds a column. */
export function hasReplyTokens(conditions: readonly Pick<ConditionSummary, "meanReplyTokens">[]): boolean {
  return conditions.length > 0 && conditions.every((condition) => typeof condition.meanReplyTokens === "number");
}

/** The headline header, with "reply tokens" after "reply chars" when a tokenizer was set. */
export function headlineHeader(conditions: readonly ConditionSummary[], base: readonly string[] = HEADLINE_HEADER): string[] {
  if (!hasReplyTokens(conditions)) return [...base];
  const at = base.indexOf("reply chars") + 1;
  return [...base.slice(0, at), "reply tokens", ...base.slice(at)];
}

/** The "reply chars" cell, followed by "reply tokens" when a tokenizer was set. */
export function replyLengthCells(condition: ConditionSummary, withTokens: boolean): string[] {
  return [fixed(condition.meanReplyChars, 0), ...(withTokens ? [fixed(condition.meanReplyTokens ?? Number.NaN, 1)] : [])];
}

/**
 * The paper's headline table: per condition FS, collapse rate, HID, ECS, reply length. ECS is the
 * headline (model) judge's, `condition.ecs`; `missingEcs` is what a condition without it shows.
 */
export function headlineRows(conditions: readonly ConditionSummary[], missingEcs = "n/a"): string[][] {
  const withTokens = hasReplyTokens(conditions);
  return conditions.map((condition) => [
    condition.name,
    String(condition.n),
    withCI(condition.fs),
    percent(condition.collapseRate),
    withCI(condition.hid),
    condition.ecs === null ? missingEcs : withCI(condition.ecs),
    ...replyLengthCells(condition, withTokens),
    String(condition.errors),
  ]);
}

/** The headline's ECS cell when ECS judges ran but none is a model (analysis/ecs-judges.ts). */
export const NO_MODEL_JUDGE = "n/a (no model judge)";

export const HEADLINE_HEADER = ["condition", "n", "FS [95% CI]", "collapse", "HID", "ECS", "reply chars", "errors"];

/** A plain-text table with aligned columns, for terminals. */
export function textTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((cell, column) => Math.max([...cell].length, ...rows.map((row) => [...(row[column] ?? "")].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

/**
 * Escapes text for markdown prose: markup characters become entities (markdown renderers pass raw
 * HTML through) and markdown punctuation is backslash-escaped; line breaks become spaces.
 */
export function markdownText(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]|~])/g, "\\$1")
    .replace(/\r?\n/g, " ");
}

/** A markdown table; cell text is escaped so transcript text cannot break the table or inject markup. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const escape = (cell: string) =>
    cell.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  return [
    `| ${header.map(escape).join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(escape).join(" | ")} |`),
  ].join("\n");
}

/** A p-value: three decimals, or scientific notation below 0.001 ("n/a" when missing). */
export function formatP(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "n/a";
  if (value === 0) return "0";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

/** Any value of a loosely typed summary field as a short cell: numbers fixed, the rest as JSON. */
export function cellValue(value: unknown, digits = 3): string {
  if (value === null || value === undefined) return "n/a";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : fixed(value, digits);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Shortens text to `limit` characters (by code point), marking the cut with an ellipsis. */
export function truncate(text: string, limit: number): string {
  const chars = [...text];
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}

/** A signed integer ("+3", "-5", "0"). */
export function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}
