import type { DialogueError, DialogueRecord } from "../core/dialogue.js";
import type { DialogueMetrics } from "../metrics/dialogue-metrics.js";
import type { DialogueRow, EcsRow, HidRow } from "../metrics/dialogue-row.js";

/**
 * The rows of every dialogue of a run (metrics/dialogue-row.ts) held column by column: one typed
 * array per numeric field, strings as indices into one pool, the emotions, flags and judges'
 * entries of every row in shared arrays with per-row offsets. A row object holding its fields
 * costs about 1 KB (a dozen small objects and arrays); here a row costs its id string and about
 * 150 bytes of columns, so 100,000 rows take about 20 MB instead of 100 MB: the heap a run's
 * summary and reports work in, and with it their peak RSS, no longer grows by a kilobyte per
 * dialogue.
 *
 * `add` returns the row as a {@link StoredRow}: an index into the store whose getters rebuild each
 * field when read (`ecs`, `hid`, `emotions` are fresh plain objects on every read, `metrics` a
 * {@link StoredMetrics} view), equal to the row that was added. Readers that only read rows see no difference; no code
 * writes to a row once it is made.
 *
 * A missing number (null, or an absent `meanReplyTokens`) is stored as NaN: rows are made from
 * parsed JSON, which has no NaN. A row that does carry a NaN (made in code) is kept as it was given.
 */
export class DialogueRowStore {
  readonly #strings: string[] = [];
  readonly #stringIndex = new Map<string, number>();
  readonly #ids: string[] = [];
  #size = 0;
  // Per row.
  #condition = new Int32Array(1024);
  #scenarioId = new Int32Array(1024);
  #type = new Int32Array(1024);
  #preset = new Int32Array(1024);
  #status = new Int32Array(1024);
  #endReason = new Int32Array(1024);
  #repeat = new Float64Array(1024);
  #finalEmotion = new Float64Array(1024);
  #fs = new Float64Array(1024);
  #collapsed = new Uint8Array(1024);
  #hid = new Float64Array(1024);
  #turns = new Float64Array(1024);
  #meanReplyChars = new Float64Array(1024);
  #meanReplyWords = new Float64Array(1024);
  #meanReplyTokens = new Float64Array(1024);
  #meanThinkChars = new Float64Array(1024);
  /** Where each row's emotions, flags, ECS and HID entries start in their shared columns (row i's end where row i + 1's start). */
  #emotionStart = new Uint32Array(1025);
  #flagStart = new Uint32Array(1025);
  #ecsStart = new Uint32Array(1025);
  #hidStart = new Uint32Array(1025);
  // Shared, one entry per emotion, flag, ECS entry or HID entry.
  readonly #emotions = new GrowableFloat64();
  readonly #flagName = new GrowableInt32();
  readonly #flagCount = new GrowableFloat64();
  readonly #ecsName = new GrowableInt32();
  /** The judge id's string index, -1 for null. */
  readonly #ecsJudge = new GrowableInt32();
  readonly #ecsScore = new GrowableFloat64();
  readonly #ecsBefore = new GrowableFloat64();
  readonly #ecsAfter = new GrowableFloat64();
  readonly #ecsDrop = new GrowableFloat64();
  readonly #ecsErrors = new GrowableFloat64();
  readonly #ecsImputed = new GrowableFloat64();
  /** 0: null, 1: exclude, 2: impute-50. */
  readonly #ecsUnreadable = new GrowableInt32();
  readonly #hidName = new GrowableInt32();
  readonly #hidValue = new GrowableFloat64();
  readonly #hidError = new GrowableInt32();
  /** The few rows that failed, by index: their error as the record has it. */
  readonly #errors = new Map<number, DialogueError>();
  /** Rows kept as given because a field holds NaN (see the class comment), by index. */
  readonly #asGiven = new Map<number, DialogueRow>();

  get size(): number {
    return this.#size;
  }

  /** Stores the row and returns its stored form (equal to it, field for field). */
  add(row: DialogueRow): StoredRow {
    const index = this.#size;
    this.#reserve(index + 1);
    this.#ids.push(row.id);
    this.#size += 1;
    if (holdsNaN(row)) {
      this.#asGiven.set(index, row);
      this.#emotionStart[index + 1] = this.#emotionStart[index] as number;
      this.#flagStart[index + 1] = this.#flagStart[index] as number;
      this.#ecsStart[index + 1] = this.#ecsStart[index] as number;
      this.#hidStart[index + 1] = this.#hidStart[index] as number;
      return new StoredRow(this, index);
    }
    this.#condition[index] = this.#intern(row.condition);
    this.#scenarioId[index] = this.#intern(row.scenarioId);
    this.#type[index] = this.#intern(row.type);
    this.#preset[index] = this.#intern(row.preset);
    this.#status[index] = this.#intern(row.status);
    this.#endReason[index] = this.#intern(row.endReason);
    this.#repeat[index] = row.repeat;
    this.#finalEmotion[index] = row.finalEmotion;
    if (row.error !== undefined) this.#errors.set(index, row.error);
    const metrics = row.metrics;
    this.#fs[index] = metrics.fs;
    this.#collapsed[index] = metrics.collapsed ? 1 : 0;
    this.#hid[index] = metrics.hid ?? Number.NaN;
    this.#turns[index] = metrics.turns;
    this.#meanReplyChars[index] = metrics.meanReplyChars;
    this.#meanReplyWords[index] = metrics.meanReplyWords;
    this.#meanReplyTokens[index] = metrics.meanReplyTokens ?? Number.NaN;
    this.#meanThinkChars[index] = metrics.meanThinkChars ?? Number.NaN;
    for (const emotion of row.emotions) this.#emotions.push(emotion);
    this.#emotionStart[index + 1] = this.#emotions.length;
    for (const [flag, count] of Object.entries(metrics.flags)) {
      this.#flagName.push(this.#intern(flag));
      this.#flagCount.push(count);
    }
    this.#flagStart[index + 1] = this.#flagName.length;
    for (const [name, entry] of Object.entries(row.ecs)) {
      this.#ecsName.push(this.#intern(name));
      this.#ecsJudge.push(entry.judge === null ? -1 : this.#intern(entry.judge));
      this.#ecsScore.push(entry.score ?? Number.NaN);
      this.#ecsBefore.push(entry.before ?? Number.NaN);
      this.#ecsAfter.push(entry.after ?? Number.NaN);
      this.#ecsDrop.push(entry.drop ?? Number.NaN);
      this.#ecsErrors.push(entry.errors);
      this.#ecsImputed.push(entry.imputed);
      this.#ecsUnreadable.push(entry.unreadableTurn === null ? 0 : entry.unreadableTurn === "exclude" ? 1 : 2);
    }
    this.#ecsStart[index + 1] = this.#ecsName.length;
    for (const [name, entry] of Object.entries(row.hid)) {
      this.#hidName.push(this.#intern(name));
      this.#hidValue.push(entry.value ?? Number.NaN);
      this.#hidError.push(entry.error ? 1 : 0);
    }
    this.#hidStart[index + 1] = this.#hidName.length;
    return new StoredRow(this, index);
  }

  /** The row at `index` as a plain object, equal to the one added (what {@link StoredRow.plain} returns). */
  plainRow(index: number): DialogueRow {
    const given = this.#given(index);
    if (given !== undefined) return given;
    const error = this.#errors.get(index);
    return {
      id: this.id(index),
      condition: this.condition(index),
      scenarioId: this.scenarioId(index),
      type: this.type(index),
      preset: this.preset(index),
      repeat: this.repeat(index),
      status: this.status(index),
      endReason: this.endReason(index),
      ...(error !== undefined ? { error } : {}),
      metrics: this.plainMetrics(index),
      emotions: this.emotions(index),
      finalEmotion: this.finalEmotion(index),
      ecs: this.ecs(index),
      hid: this.hid(index),
    };
  }

  id(index: number): string {
    return this.#ids[index] as string;
  }

  condition(index: number): string {
    return this.#given(index)?.condition ?? (this.#strings[this.#condition[index] as number] as string);
  }

  scenarioId(index: number): string {
    return this.#given(index)?.scenarioId ?? (this.#strings[this.#scenarioId[index] as number] as string);
  }

  type(index: number): string {
    return this.#given(index)?.type ?? (this.#strings[this.#type[index] as number] as string);
  }

  preset(index: number): string {
    return this.#given(index)?.preset ?? (this.#strings[this.#preset[index] as number] as string);
  }

  status(index: number): DialogueRecord["status"] {
    return this.#given(index)?.status ?? (this.#strings[this.#status[index] as number] as DialogueRecord["status"]);
  }

  endReason(index: number): DialogueRecord["endReason"] {
    return this.#given(index)?.endReason ?? (this.#strings[this.#endReason[index] as number] as DialogueRecord["endReason"]);
  }

  repeat(index: number): number {
    return this.#given(index)?.repeat ?? (this.#repeat[index] as number);
  }

  finalEmotion(index: number): number {
    return this.#given(index)?.finalEmotion ?? (this.#finalEmotion[index] as number);
  }

  error(index: number): DialogueError | undefined {
    const given = this.#given(index);
    return given !== undefined ? given.error : this.#errors.get(index);
  }

  /**
   * The row's metrics as a view ({@link StoredMetrics}: one small object whose getters read the
   * columns), or as given. The summary reads `row.metrics.fs` and the like millions of times:
   * a view costs one small object per read where a plain copy cost a dozen fields and a flags map.
   */
  metrics(index: number): DialogueMetrics {
    return this.#given(index)?.metrics ?? new StoredMetrics(this, index);
  }

  /** The row's metrics as a plain object, equal to the ones added. */
  plainMetrics(index: number): DialogueMetrics {
    const given = this.#given(index);
    if (given !== undefined) return given.metrics;
    const tokens = this.meanReplyTokens(index);
    return {
      fs: this.fs(index),
      collapsed: this.collapsed(index),
      hid: this.simulatorHid(index),
      turns: this.turns(index),
      meanReplyChars: this.meanReplyChars(index),
      meanReplyWords: this.meanReplyWords(index),
      ...(tokens === undefined ? {} : { meanReplyTokens: tokens }),
      meanThinkChars: this.meanThinkChars(index),
      flags: this.flags(index),
    };
  }

  // The metrics of a row stored in the columns (not one kept as given), field by field.
  fs(index: number): number {
    return this.#fs[index] as number;
  }
  collapsed(index: number): boolean {
    return this.#collapsed[index] === 1;
  }
  simulatorHid(index: number): number | null {
    return nullIfNaN(this.#hid[index] as number);
  }
  turns(index: number): number {
    return this.#turns[index] as number;
  }
  meanReplyChars(index: number): number {
    return this.#meanReplyChars[index] as number;
  }
  meanReplyWords(index: number): number {
    return this.#meanReplyWords[index] as number;
  }
  meanReplyTokens(index: number): number | undefined {
    const tokens = this.#meanReplyTokens[index] as number;
    return Number.isNaN(tokens) ? undefined : tokens;
  }
  meanThinkChars(index: number): number | null {
    return nullIfNaN(this.#meanThinkChars[index] as number);
  }
  flags(index: number): Record<string, number> {
    const flags: Record<string, number> = {};
    const end = this.#flagStart[index + 1] as number;
    for (let at = this.#flagStart[index] as number; at < end; at += 1)
      flags[this.#strings[this.#flagName.at(at)] as string] = this.#flagCount.at(at);
    return flags;
  }

  emotions(index: number): number[] {
    const given = this.#given(index);
    if (given !== undefined) return given.emotions;
    const emotions: number[] = [];
    const end = this.#emotionStart[index + 1] as number;
    for (let at = this.#emotionStart[index] as number; at < end; at += 1) emotions.push(this.#emotions.at(at));
    return emotions;
  }

  ecs(index: number): Record<string, EcsRow> {
    const given = this.#given(index);
    if (given !== undefined) return given.ecs;
    const entries: Record<string, EcsRow> = {};
    const end = this.#ecsStart[index + 1] as number;
    for (let at = this.#ecsStart[index] as number; at < end; at += 1) {
      const judge = this.#ecsJudge.at(at);
      const unreadable = this.#ecsUnreadable.at(at);
      entries[this.#strings[this.#ecsName.at(at)] as string] = {
        judge: judge === -1 ? null : (this.#strings[judge] as string),
        score: nullIfNaN(this.#ecsScore.at(at)),
        before: nullIfNaN(this.#ecsBefore.at(at)),
        after: nullIfNaN(this.#ecsAfter.at(at)),
        drop: nullIfNaN(this.#ecsDrop.at(at)),
        errors: this.#ecsErrors.at(at),
        imputed: this.#ecsImputed.at(at),
        unreadableTurn: unreadable === 0 ? null : unreadable === 1 ? "exclude" : "impute-50",
      };
    }
    return entries;
  }

  hid(index: number): Record<string, HidRow> {
    const given = this.#given(index);
    if (given !== undefined) return given.hid;
    const entries: Record<string, HidRow> = {};
    const end = this.#hidStart[index + 1] as number;
    for (let at = this.#hidStart[index] as number; at < end; at += 1)
      entries[this.#strings[this.#hidName.at(at)] as string] = {
        value: nullIfNaN(this.#hidValue.at(at)),
        error: this.#hidError.at(at) === 1,
      };
    return entries;
  }

  /** The row kept as given at `index`, if any (no lookup while there is none, the usual case). */
  #given(index: number): DialogueRow | undefined {
    return this.#asGiven.size === 0 ? undefined : this.#asGiven.get(index);
  }

  #intern(value: string): number {
    const known = this.#stringIndex.get(value);
    if (known !== undefined) return known;
    this.#strings.push(value);
    this.#stringIndex.set(value, this.#strings.length - 1);
    return this.#strings.length - 1;
  }

  /** Grows the per-row columns (doubling) to hold `rows` rows. */
  #reserve(rows: number): void {
    if (rows <= this.#condition.length) return;
    const capacity = Math.max(rows, this.#condition.length * 2);
    this.#condition = grown(this.#condition, capacity);
    this.#scenarioId = grown(this.#scenarioId, capacity);
    this.#type = grown(this.#type, capacity);
    this.#preset = grown(this.#preset, capacity);
    this.#status = grown(this.#status, capacity);
    this.#endReason = grown(this.#endReason, capacity);
    this.#repeat = grown(this.#repeat, capacity);
    this.#finalEmotion = grown(this.#finalEmotion, capacity);
    this.#fs = grown(this.#fs, capacity);
    this.#collapsed = grown(this.#collapsed, capacity);
    this.#hid = grown(this.#hid, capacity);
    this.#turns = grown(this.#turns, capacity);
    this.#meanReplyChars = grown(this.#meanReplyChars, capacity);
    this.#meanReplyWords = grown(this.#meanReplyWords, capacity);
    this.#meanReplyTokens = grown(this.#meanReplyTokens, capacity);
    this.#meanThinkChars = grown(this.#meanThinkChars, capacity);
    this.#emotionStart = grown(this.#emotionStart, capacity + 1);
    this.#flagStart = grown(this.#flagStart, capacity + 1);
    this.#ecsStart = grown(this.#ecsStart, capacity + 1);
    this.#hidStart = grown(this.#hidStart, capacity + 1);
  }
}

/**
 * One row of a {@link DialogueRowStore}: its index, with a getter per field of {@link DialogueRow}
 * reading the columns. About 40 bytes of its own; the objects its getters return are made on
 * every read and left to the caller.
 */
export class StoredRow implements DialogueRow {
  constructor(
    readonly store: DialogueRowStore,
    readonly index: number,
  ) {}

  get id(): string {
    return this.store.id(this.index);
  }
  get condition(): string {
    return this.store.condition(this.index);
  }
  get scenarioId(): string {
    return this.store.scenarioId(this.index);
  }
  get type(): string {
    return this.store.type(this.index);
  }
  get preset(): string {
    return this.store.preset(this.index);
  }
  get repeat(): number {
    return this.store.repeat(this.index);
  }
  get status(): DialogueRecord["status"] {
    return this.store.status(this.index);
  }
  get endReason(): DialogueRecord["endReason"] {
    return this.store.endReason(this.index);
  }
  get error(): DialogueError | undefined {
    return this.store.error(this.index);
  }
  get metrics(): DialogueMetrics {
    return this.store.metrics(this.index);
  }
  get emotions(): number[] {
    return this.store.emotions(this.index);
  }
  get finalEmotion(): number {
    return this.store.finalEmotion(this.index);
  }
  get ecs(): Record<string, EcsRow> {
    return this.store.ecs(this.index);
  }
  get hid(): Record<string, HidRow> {
    return this.store.hid(this.index);
  }

  /** The row as a plain object (for JSON, spreading, or a worker): getters are not own properties. */
  plain(): DialogueRow {
    return this.store.plainRow(this.index);
  }

  toJSON(): DialogueRow {
    return this.plain();
  }
}

/**
 * The metrics of one stored row, read from the columns by getters (`flags` is built on each
 * read). Not own properties: `plain()` or JSON gives the plain object.
 */
export class StoredMetrics implements DialogueMetrics {
  constructor(
    readonly store: DialogueRowStore,
    readonly index: number,
  ) {}

  get fs(): number {
    return this.store.fs(this.index);
  }
  get collapsed(): boolean {
    return this.store.collapsed(this.index);
  }
  get hid(): number | null {
    return this.store.simulatorHid(this.index);
  }
  get turns(): number {
    return this.store.turns(this.index);
  }
  get meanReplyChars(): number {
    return this.store.meanReplyChars(this.index);
  }
  get meanReplyWords(): number {
    return this.store.meanReplyWords(this.index);
  }
  get meanReplyTokens(): number | undefined {
    return this.store.meanReplyTokens(this.index);
  }
  get meanThinkChars(): number | null {
    return this.store.meanThinkChars(this.index);
  }
  get flags(): Record<string, number> {
    return this.store.flags(this.index);
  }

  plain(): DialogueMetrics {
    return this.store.plainMetrics(this.index);
  }

  toJSON(): DialogueMetrics {
    return this.plain();
  }
}

const nullIfNaN = (value: number): number | null => (Number.isNaN(value) ? null : value);

/** Whether a number the store would hold as "missing" is NaN in the row itself. */
function holdsNaN(row: DialogueRow): boolean {
  const m = row.metrics;
  const numbers = [row.repeat, row.finalEmotion, m.fs, m.hid ?? 0, m.turns, m.meanReplyChars, m.meanReplyWords, m.meanReplyTokens ?? 0];
  numbers.push(m.meanThinkChars ?? 0, ...row.emotions, ...Object.values(m.flags));
  for (const entry of Object.values(row.ecs))
    numbers.push(entry.score ?? 0, entry.before ?? 0, entry.after ?? 0, entry.drop ?? 0, entry.errors, entry.imputed);
  for (const entry of Object.values(row.hid)) numbers.push(entry.value ?? 0);
  return numbers.some((value) => Number.isNaN(value));
}

function grown<T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(column: T, capacity: number): T {
  const next = new (column.constructor as new (length: number) => T)(capacity);
  next.set(column);
  return next;
}

/** A Float64Array that grows by doubling as numbers are pushed. */
class GrowableFloat64 {
  #values = new Float64Array(4096);
  length = 0;

  push(value: number): void {
    if (this.length === this.#values.length) this.#values = grown(this.#values, this.#values.length * 2);
    this.#values[this.length] = value;
    this.length += 1;
  }

  at(index: number): number {
    return this.#values[index] as number;
  }
}

/** An Int32Array that grows by doubling as numbers are pushed. */
class GrowableInt32 {
  #values = new Int32Array(4096);
  length = 0;

  push(value: number): void {
    if (this.length === this.#values.length) this.#values = grown(this.#values, this.#values.length * 2);
    this.#values[this.length] = value;
    this.length += 1;
  }

  at(index: number): number {
    return this.#values[index] as number;
  }
}
