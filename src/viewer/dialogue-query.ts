/**
 * The dialogue table: filters, search, sort and paging over the index of every run, in memory
 * (numbers only); the search scans the files (reply-search.ts). A page carries summaries, never
 * text, so the browser never loads more than the page it shows.
 */
import type { DialogueQuery, DialogueSummary, SortKey } from "./api-schemas.js";
import type { ReplySearch } from "./reply-search.js";
import type { IndexedDialogue, RunIndex } from "./run-index.js";

/** A run with its search. */
export interface SearchableRun {
  index: RunIndex;
  search: ReplySearch;
  /** The run's headline ECS judge (the first that is a model), whose score the table's ECS column shows; null when none. */
  headlineJudge: string | null;
  /** The run's first heuristic ECS judge (the lexicon baseline), whose score the table shows in a column of its own; null when none. */
  lexiconJudge: string | null;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Nulls sort after every number, in either order. */
function compareNullable(a: number | null, b: number | null, direction: number): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return (a - b) * direction;
}

const NUMBER_OF: Record<Exclude<SortKey, "default" | "id">, (entry: IndexedDialogue) => number | null> = {
  fs: (entry) => (entry.row.status === "done" ? entry.row.metrics.fs : null),
  finalEmotion: (entry) => entry.row.finalEmotion,
  lowestEmotion: (entry) => entry.lowestEmotion,
  turns: (entry) => entry.row.metrics.turns,
  judgeGap: (entry) => entry.judgeGap,
  predictionGap: (entry) => entry.predictionGap,
};

/**
 * The default order: run, then the run's condition order, scenario, repeat; ties (duplicates)
 * in file order. Other keys sort by their value, ties in the default order.
 */
function comparator(
  runs: readonly SearchableRun[],
  sort: SortKey,
  order: "asc" | "desc",
): (a: IndexedDialogue, b: IndexedDialogue) => number {
  const conditionRank = runs.map((run) => new Map(run.index.facets.conditions.map((name, rank) => [name, rank])));
  const direction = order === "asc" ? 1 : -1;
  const byDefault = (a: IndexedDialogue, b: IndexedDialogue): number =>
    a.run - b.run ||
    (conditionRank[a.run]?.get(a.row.condition) ?? 0) - (conditionRank[b.run]?.get(b.row.condition) ?? 0) ||
    compareText(a.row.scenarioId, b.row.scenarioId) ||
    a.row.repeat - b.row.repeat ||
    a.ordinal - b.ordinal;
  if (sort === "default") return (a, b) => byDefault(a, b) * direction;
  if (sort === "id") return (a, b) => (compareText(a.row.id, b.row.id) || a.run - b.run || a.ordinal - b.ordinal) * direction;
  const value = NUMBER_OF[sort];
  return (a, b) => compareNullable(value(a), value(b), direction) || byDefault(a, b);
}

/** Whether a dialogue passes every filter of the query but the search. */
function passes(entry: IndexedDialogue, query: DialogueQuery): boolean {
  const row = entry.row;
  const within = (values: readonly string[], value: string) => values.length === 0 || values.includes(value);
  if (
    !within(query.condition, row.condition) ||
    !within(query.type, row.type) ||
    !within(query.scenario, row.scenarioId) ||
    !within(query.endReason, row.endReason)
  )
    return false;
  if (!within(query.status, row.status)) return false;
  if (query.flag.length > 0 && !query.flag.some((flag) => entry.flags.includes(flag))) return false;
  const emotion = query.emotionOf === "lowest" ? entry.lowestEmotion : row.finalEmotion;
  if (query.emotionMin !== undefined && emotion < query.emotionMin) return false;
  if (query.emotionMax !== undefined && emotion > query.emotionMax) return false;
  if (query.disagreement !== undefined && query.disagreementMin !== undefined) {
    const gap = query.disagreement === "judges" ? entry.judgeGap : entry.predictionGap;
    if (gap === null || gap < query.disagreementMin) return false;
  }
  return true;
}

/** A dialogue as a line of the table. */
export function summaryOf(entry: IndexedDialogue, headlineJudge: string | null, lexiconJudge: string | null = null): DialogueSummary {
  const row = entry.row;
  const scoreOf = (judge: string | null) => {
    const score = judge === null ? null : (row.ecs[judge]?.score ?? null);
    return typeof score === "number" && Number.isFinite(score) ? score : null;
  };
  return {
    run: entry.run,
    id: row.id,
    condition: row.condition,
    scenarioId: row.scenarioId,
    type: row.type,
    repeat: row.repeat,
    status: row.status,
    endReason: row.endReason,
    preset: row.preset,
    fs: row.metrics.fs,
    finalEmotion: row.finalEmotion,
    lowestEmotion: entry.lowestEmotion,
    turns: row.metrics.turns,
    flags: [...entry.flags],
    hid: row.metrics.hid,
    ecs: scoreOf(headlineJudge),
    lexiconBaseline: scoreOf(lexiconJudge),
    judgeGap: entry.judgeGap,
    predictionGap: entry.predictionGap,
  };
}

/** Every dialogue that passes the query, sorted (all pages). */
export function selectDialogues(runs: readonly SearchableRun[], query: DialogueQuery): IndexedDialogue[] {
  const chosen = query.run.length === 0 ? runs : runs.filter((run) => query.run.includes(run.index.run));
  const search = query.q === undefined || query.q.trim() === "" ? undefined : query.q;
  const selected: IndexedDialogue[] = [];
  for (const run of chosen) {
    const candidates = run.index.dialogues.filter((entry) => passes(entry, query));
    // Search last: the other filters are cheap, and a cached search costs a set lookup.
    const found = search === undefined || candidates.length === 0 ? undefined : run.search.matches(search);
    for (const entry of candidates) if (found === undefined || found.has(entry.ordinal)) selected.push(entry);
  }
  return selected.sort(comparator(runs, query.sort, query.order));
}

/** Selections (all pages of a query) kept, so that paging and re-sorting back do not filter again. */
const KEPT_SELECTIONS = 4;

/** The dialogue table over a fixed set of runs: pages of a query, with the last few selections kept. */
export class DialogueTable {
  readonly #recent = new Map<string, IndexedDialogue[]>();

  constructor(readonly runs: readonly SearchableRun[]) {}

  /** One page of the table. */
  page(query: DialogueQuery): { total: number; rows: DialogueSummary[] } {
    const selected = this.#selection(query);
    const rows = selected
      .slice(query.offset, query.offset + query.limit)
      .map((entry) => summaryOf(entry, this.runs[entry.run]?.headlineJudge ?? null, this.runs[entry.run]?.lexiconJudge ?? null));
    return { total: selected.length, rows };
  }

  #selection(query: DialogueQuery): IndexedDialogue[] {
    const { offset: _offset, limit: _limit, ...rest } = query;
    const key = JSON.stringify(rest);
    let selected = this.#recent.get(key);
    if (selected !== undefined) this.#recent.delete(key);
    else selected = selectDialogues(this.runs, query);
    // Most recently used last.
    this.#recent.set(key, selected);
    if (this.#recent.size > KEPT_SELECTIONS) this.#recent.delete(this.#recent.keys().next().value as string);
    return selected;
  }
}
