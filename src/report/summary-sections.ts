import { z } from "zod";
import type { RunSummary } from "../analysis/summary-schema.js";

/**
 * The parts of summary.json that other modules fill in (stats/ writes `comparisons` and
 * `lengthConfound`), read defensively: the report shows what it can read and counts the rest.
 */
/** A number, or null (JSON's NaN), or NaN itself (a summary still in memory); missing is allowed. */
const nullableNumber = z.union([z.number(), z.nan()]).nullable().optional();
/** The same, but the field must be present. */
const requiredNumber = z.union([z.number(), z.nan()]).nullable();

/** One pairwise comparison (docs/statistics.md); extra fields are allowed and ignored. */
export const ComparisonRowSchema = z.looseObject({
  metric: z.string(),
  test: z.string(),
  a: z.string(),
  b: z.string(),
  n: z.unknown(),
  /** Required (null allowed), so an entry of another shape is counted as unreadable, not shown as n/a. */
  p: requiredNumber,
  pHolm: nullableNumber,
  r: nullableNumber,
  meanA: nullableNumber,
  meanB: nullableNumber,
  /** McNemar: the discordant pairs (a collapsed and b not; b collapsed and a not). */
  discordant: z.looseObject({ aOnly: z.number(), bOnly: z.number() }).optional(),
  /** The Holm family (`reference`, `other`); absent in summaries written before families. */
  family: z.string().optional(),
  /** The matched tests' mean difference a - b with its bootstrap interval. */
  difference: z.looseObject({ mean: requiredNumber, ci95: z.tuple([z.number(), z.number()]).nullable() }).optional(),
});
export type ComparisonRow = z.infer<typeof ComparisonRowSchema>;

/** One pair's length-confound check: the condition coefficient on FS without and with standardized length. */
export const LengthConfoundRowSchema = z.looseObject({
  a: z.string(),
  b: z.string(),
  /** Required (null allowed), so an entry of another shape is counted as unreadable, not shown as n/a. */
  coefficient: requiredNumber,
  p: requiredNumber,
  coefficientAdjusted: nullableNumber,
  pAdjusted: nullableNumber,
  rhoA: nullableNumber,
  rhoB: nullableNumber,
  /** Why the adjusted model could not be fitted, when it could not. */
  note: z.string().optional(),
});
export type LengthConfoundRow = z.infer<typeof LengthConfoundRowSchema>;

export interface SummarySections {
  comparisons: ComparisonRow[];
  unreadableComparisons: number;
  /** Null when summary.json has no `lengthConfound` field at all. */
  lengthConfound: LengthConfoundRow[] | null;
  unreadableLengthConfound: number;
}

const MeanWithCISchema = z.looseObject({ mean: requiredNumber, ci95: z.tuple([z.number(), z.number()]).nullable() });

/** One ECS judge's numbers for one condition (`summary.conditions[].ecsByJudge[judge]`). */
export const EcsJudgeCellSchema = z.looseObject({
  mean: MeanWithCISchema.nullable(),
  before: nullableNumber,
  after: nullableNumber,
  drop: nullableNumber,
  judged: z.number(),
  judgeErrors: z.number(),
});
export type EcsJudgeCell = z.infer<typeof EcsJudgeCellSchema>;

/** One independent HID judge's numbers for one condition (`summary.conditions[].hidByJudge[judge]`). */
export const HidJudgeCellSchema = z.looseObject({
  mean: MeanWithCISchema.nullable(),
  judged: z.number(),
  judgeErrors: z.number(),
});
export type HidJudgeCell = z.infer<typeof HidJudgeCellSchema>;

/** Token usage of one model role (`summary.usage[]`, LLM runs only). */
export const UsageRowSchema = z.looseObject({
  role: z.string(),
  model: z.string(),
  calls: z.number(),
  cachedCalls: z.number(),
  failedCalls: z.number(),
  requests: z.number(),
  retries: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
});
export type UsageRow = z.infer<typeof UsageRowSchema>;

/** Per judge, per condition (in the summary's condition order): the cell, or null where the condition has none. */
export interface JudgeTable<T> {
  judge: string;
  cells: Array<{ condition: string; cell: T | null }>;
}

export interface JudgeSections {
  /** ECS judges in the summary's order (`judges.ecs`; the first gives the headline ECS), then any others found. */
  ecs: Array<JudgeTable<EcsJudgeCell>>;
  /** Independent HID judges, likewise. */
  hid: Array<JudgeTable<HidJudgeCell>>;
  /** Judge entries of another shape, counted and not shown. */
  unreadable: number;
  /** Null when summary.json has no `usage` (offline runs). */
  usage: UsageRow[] | null;
  unreadableUsage: number;
}

function readRows<T>(value: unknown, schema: z.ZodType<T>): { rows: T[]; unreadable: number } {
  if (!Array.isArray(value)) return { rows: [], unreadable: value === undefined || value === null ? 0 : 1 };
  const rows: T[] = [];
  let unreadable = 0;
  for (const item of value) {
    const parsed = schema.safeParse(item);
    if (parsed.success) rows.push(parsed.data);
    else unreadable += 1;
  }
  return { rows, unreadable };
}

export function summarySections(summary: RunSummary): SummarySections {
  const loose = summary as unknown as Record<string, unknown>;
  const comparisons = readRows(loose.comparisons, ComparisonRowSchema);
  const hasLength = loose.lengthConfound !== undefined && loose.lengthConfound !== null;
  const lengthConfound = readRows(loose.lengthConfound, LengthConfoundRowSchema);
  return {
    comparisons: comparisons.rows,
    unreadableComparisons: comparisons.unreadable,
    lengthConfound: hasLength ? lengthConfound.rows : null,
    unreadableLengthConfound: lengthConfound.unreadable,
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The per-judge parts of summary.json (main's `judges`, `conditions[].ecsByJudge`,
 * `conditions[].hidByJudge` and `usage`), read defensively: a summary written before judges
 * existed has none of them, and gives empty lists.
 */
export function judgeSections(summary: RunSummary): JudgeSections {
  const loose = summary as unknown as Record<string, unknown>;
  const named = (loose.judges ?? {}) as Record<string, unknown>;
  let unreadable = 0;
  function tables<T>(key: "ecsByJudge" | "hidByJudge", order: string[], schema: z.ZodType<T>): Array<JudgeTable<T>> {
    const byCondition = summary.conditions.map((condition) => {
      const value = (condition as unknown as Record<string, unknown>)[key];
      return { condition: condition.name, entries: value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {} };
    });
    const found = [...new Set(byCondition.flatMap(({ entries }) => Object.keys(entries)))].filter((judge) => !order.includes(judge)).sort();
    return [...order, ...found]
      .map((judge) => ({
        judge,
        cells: byCondition.map(({ condition, entries }) => {
          if (entries[judge] === undefined) return { condition, cell: null };
          const parsed = schema.safeParse(entries[judge]);
          if (!parsed.success) unreadable += 1;
          return { condition, cell: parsed.success ? parsed.data : null };
        }),
      }))
      .filter((table) => table.cells.some(({ cell }) => cell !== null));
  }
  const ecs = tables("ecsByJudge", stringList(named.ecs), EcsJudgeCellSchema);
  const hid = tables("hidByJudge", stringList(named.hid), HidJudgeCellSchema);
  const usage = loose.usage === undefined || loose.usage === null ? null : readRows(loose.usage, UsageRowSchema);
  return { ecs, hid, unreadable, usage: usage?.rows ?? null, unreadableUsage: usage?.unreadable ?? 0 };
}

/** The ECS judges summary.json names (`judges.ecs`, the first gives the headline ECS); empty for an older summary. */
export function summaryEcsJudges(summary: RunSummary): string[] {
  return stringList(((summary as unknown as Record<string, unknown>).judges as Record<string, unknown> | undefined)?.ecs);
}

/** Comparisons grouped by metric, metrics in first-seen order, rows in summary order. */
export function comparisonsByMetric(rows: readonly ComparisonRow[]): Array<{ metric: string; rows: ComparisonRow[] }> {
  const groups = new Map<string, ComparisonRow[]>();
  for (const row of rows) groups.set(row.metric, [...(groups.get(row.metric) ?? []), row]);
  return [...groups].map(([metric, grouped]) => ({ metric, rows: grouped }));
}
