/**
 * Chart point reduction for large runs. A chart that draws one mark per dialogue costs Vega about
 * 11 MB per thousand points while it draws, and report.html about 300 bytes per point (100,000
 * dialogues: over a gigabyte, and a 60 MB page), and shows nothing that a few thousand do not. Above
 * {@link MAX_DIALOGUE_POINTS} scored dialogues, the per-dialogue charts draw a deterministic
 * sample instead, and every mean they show is still computed over all dialogues. Runs at or
 * below the limit draw every dialogue, as before (their charts are unchanged, byte for byte).
 */
import { createHash } from "node:crypto";

/** The most per-dialogue points a chart draws; above it, a sample of about this many (see {@link sampleDialogueIds}). */
export const MAX_DIALOGUE_POINTS = 3000;

/** What a chart drew of the scored dialogues: every one, or a sample. */
export interface PointSample {
  /** Ids of the dialogues drawn as points; undefined when every dialogue is drawn. */
  ids: ReadonlySet<string> | undefined;
  /** Scored dialogues in all. */
  total: number;
  /** Dialogues drawn. */
  drawn: number;
}

/** A 48-bit rank of a dialogue id under the run seed: a fixed pseudo-random order, the same in every process and on every machine. */
function rankOf(seed: number, id: string): number {
  return Number.parseInt(createHash("sha256").update(`${seed}\u0000${id}`, "utf8").digest("hex").slice(0, 12), 16);
}

/**
 * Which dialogues the per-dialogue charts draw: all of them up to `limit`; above it, in each
 * condition the share of `limit` that the condition has of the dialogues (at least one), taken
 * as the dialogues of lowest rank under the run seed (ties by id). The sample depends only on the
 * ids, the conditions and the seed, not on the order dialogues were recorded in, so a resumed
 * run draws the same points; and each condition keeps its weight, so no colour drowns another.
 */
export function sampleDialogueIds(
  dialogues: ReadonlyArray<{ id: string; condition: string }>,
  seed: number,
  limit: number = MAX_DIALOGUE_POINTS,
): PointSample {
  const total = dialogues.length;
  if (total <= limit) return { ids: undefined, total, drawn: total };
  // Per condition, its dialogues' ids and ranks side by side (no object per dialogue: at 100,000
  // dialogues those were promoted to the old generation and raised the reports' peak heap).
  const byCondition = new Map<string, { ids: string[]; ranks: number[] }>();
  for (const dialogue of dialogues) {
    let group = byCondition.get(dialogue.condition);
    if (group === undefined) {
      group = { ids: [], ranks: [] };
      byCondition.set(dialogue.condition, group);
    }
    group.ids.push(dialogue.id);
    group.ranks.push(rankOf(seed, dialogue.id));
  }
  const ids = new Set<string>();
  for (const group of byCondition.values()) {
    const quota = Math.max(1, Math.round((limit * group.ids.length) / total));
    const { ids: groupIds, ranks } = group;
    const order = Uint32Array.from(groupIds, (_, index) => index);
    order.sort((a, b) => {
      const byRank = (ranks[a] as number) - (ranks[b] as number);
      if (byRank !== 0) return byRank;
      const idA = groupIds[a] as string;
      const idB = groupIds[b] as string;
      // Equal ids keep their order, as the stable sort of the entries did.
      return idA < idB ? -1 : idA > idB ? 1 : a - b;
    });
    for (const index of order.subarray(0, quota)) ids.add(groupIds[index] as string);
  }
  return { ids, total, drawn: ids.size };
}

/** The sentence a sampled chart's caption ends with; empty when every dialogue is drawn. */
export function sampleCaption(sample: PointSample): string {
  if (sample.ids === undefined) return "";
  return ` This run has ${sample.total.toLocaleString("en-US")} scored dialogues: the points are a fixed sample of ${sample.drawn.toLocaleString("en-US")} of them (in each condition its share, picked by a hash of the dialogue id under the run seed); the diamonds are the means over all ${sample.total.toLocaleString("en-US")}. Every dialogue is in dialogues.jsonl, and aeb view DIR lists, filters and opens them all.`;
}

/**
 * The means of `fields` per group of items with equal `keys`, taken as items are added (nothing
 * kept per item but the first of each group): {@link groupMeans} of every item added, for charts
 * that mark the means over every dialogue of a large run while drawing only a sample of them.
 */
export class GroupMeans<T extends object> {
  /** The groups by their key values, key by key (no key string per item: building and hashing one for each of 200,000 items took seconds and filled the old generation). */
  readonly #index = new Map<unknown, unknown>();
  /** The groups in first-seen order. */
  readonly #groups: Array<{ first: T; sums: number[]; n: number }> = [];

  constructor(
    readonly keys: ReadonlyArray<keyof T & string>,
    readonly fields: ReadonlyArray<keyof T & string>,
  ) {}

  add(item: T): void {
    let level = this.#index;
    const last = this.keys.length - 1;
    for (let depth = 0; depth < last; depth += 1) {
      const value = groupKey(item[this.keys[depth] as keyof T]);
      let next = level.get(value) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = last < 0 ? undefined : groupKey(item[this.keys[last] as keyof T]);
    let group = level.get(value) as { first: T; sums: number[]; n: number } | undefined;
    if (group === undefined) {
      group = { first: item, sums: this.fields.map(() => 0), n: 0 };
      level.set(value, group);
      this.#groups.push(group);
    }
    group.n += 1;
    for (let index = 0; index < this.fields.length; index += 1)
      group.sums[index] = (group.sums[index] as number) + (item[this.fields[index] as keyof T] as number);
  }

  /** One item per group, in first-seen order: the group's key fields (from its first item), then each field's mean. */
  means(): Array<Record<string, unknown>> {
    return this.#groups.map(({ first, sums, n }) => ({
      ...Object.fromEntries(this.keys.map((key) => [key, first[key]])),
      ...Object.fromEntries(this.fields.map((field, index) => [field, (sums[index] as number) / n])),
    }));
  }
}

/**
 * A key value as the groups tell values apart: strings, booleans and finite numbers as
 * themselves; anything else by its JSON (what equal keys always meant: `JSON.stringify` of the
 * key values, so NaN and null are one key, and objects with equal JSON are too).
 */
function groupKey(value: unknown): unknown {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return Object.is(value, -0) ? 0 : value;
  return `\u0000json:${JSON.stringify(value)}`;
}

/**
 * One item per group of `items` (the group's key fields, from its first item) with each of
 * `fields` replaced by its mean over the group, groups in first-seen order: the condition means a
 * sampled chart marks, computed over every dialogue rather than the sample.
 */
export function groupMeans<T extends object>(
  items: readonly T[],
  keys: ReadonlyArray<keyof T & string>,
  fields: ReadonlyArray<keyof T & string>,
): Array<Record<string, unknown>> {
  const means = new GroupMeans(keys, fields);
  for (const item of items) means.add(item);
  return means.means();
}
