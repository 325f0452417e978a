import { z } from "zod";
import type { RunSummary } from "../runner/summary.js";

/**
 * The parts of summary.json that other modules fill in (stats/ writes `comparisons` and
 * `lengthConfound`), read defensively: the report shows what it can read and counts the rest.
 */
const nullableNumber = z.number().nullable().optional();

/** One pairwise comparison (spec section 5); extra fields are allowed and ignored. */
export const ComparisonRowSchema = z.looseObject({
  metric: z.string(),
  test: z.string(),
  a: z.string(),
  b: z.string(),
  n: z.unknown(),
  /** Required (null allowed), so an entry of another shape is counted as unreadable, not shown as n/a. */
  p: z.number().nullable(),
  pHolm: nullableNumber,
  r: nullableNumber,
});
export type ComparisonRow = z.infer<typeof ComparisonRowSchema>;

/** One pair's length-confound check: the condition coefficient on FS without and with standardized length. */
export const LengthConfoundRowSchema = z.looseObject({
  a: z.string(),
  b: z.string(),
  /** Required (null allowed), so an entry of another shape is counted as unreadable, not shown as n/a. */
  coefficient: z.number().nullable(),
  p: z.number().nullable(),
  coefficientAdjusted: nullableNumber,
  pAdjusted: nullableNumber,
  rhoA: nullableNumber,
  rhoB: nullableNumber,
});
export type LengthConfoundRow = z.infer<typeof LengthConfoundRowSchema>;

export interface SummarySections {
  comparisons: ComparisonRow[];
  unreadableComparisons: number;
  /** Null when summary.json has no `lengthConfound` field at all. */
  lengthConfound: LengthConfoundRow[] | null;
  unreadableLengthConfound: number;
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

/** Comparisons grouped by metric, metrics in first-seen order, rows in summary order. */
export function comparisonsByMetric(rows: readonly ComparisonRow[]): Array<{ metric: string; rows: ComparisonRow[] }> {
  const groups = new Map<string, ComparisonRow[]>();
  for (const row of rows) groups.set(row.metric, [...(groups.get(row.metric) ?? []), row]);
  return [...groups].map(([metric, grouped]) => ({ metric, rows: grouped }));
}
