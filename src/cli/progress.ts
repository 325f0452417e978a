import { Presets, SingleBar } from "cli-progress";

/** How long, in words, e.g. "1m 05s", "2h 03m". */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, "0")}m`;
  if (minutes > 0) return `${minutes}m ${String(rest).padStart(2, "0")}s`;
  return `${rest}s`;
}

export interface ProgressOptions {
  /** Where progress goes (stderr). */
  stream: NodeJS.WriteStream;
  /** A bar on a terminal; plain lines every `intervalMs` otherwise (nohup, Slurm, CI logs). */
  mode: "bar" | "lines" | "off";
  intervalMs: number;
  /** Time source (tests). */
  now?: () => number;
}

/**
 * Progress of a long run: a bar on a terminal, or a plain line every so often when stderr is a
 * file or a pipe, so a run under nohup or Slurm says how it is doing. The rate and the time left
 * are given only once a dialogue has finished (before that there is nothing to estimate from).
 */
export class RunProgress {
  #total = 0;
  #done = 0;
  #errors = 0;
  #startedAt = 0;
  #firstFinishedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #bar: SingleBar | undefined;
  readonly #now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.#now = options.now ?? (() => Date.now());
  }

  start(total: number): void {
    this.#total = total;
    this.#startedAt = this.#now();
    if (total === 0 || this.options.mode === "off") return;
    if (this.options.mode === "bar") {
      this.#bar = new SingleBar({ format: "{bar} {label}", stream: this.options.stream, hideCursor: true }, Presets.shades_classic);
      this.#bar.start(total, 0, { label: this.barLabel() });
    } else {
      this.options.stream.write(`progress: 0/${total} dialogues to run\n`);
      this.#timer = setInterval(() => this.options.stream.write(`${this.line()}\n`), this.options.intervalMs);
      this.#timer.unref();
    }
  }

  /** One dialogue finished (or ended in error). */
  tick(errored: boolean): void {
    this.#done += 1;
    if (errored) this.#errors += 1;
    this.#firstFinishedAt ??= this.#now();
    this.#bar?.update(this.#done, { label: this.barLabel() });
  }

  /** "time left: 3m 05s", or why it is not known yet. */
  eta(): string {
    if (this.#done === 0 || this.#firstFinishedAt === undefined) return "time left: after the first dialogue";
    const elapsed = (this.#now() - this.#startedAt) / 1000;
    if (elapsed <= 0) return "time left: estimating";
    const rate = this.#done / elapsed;
    return `time left: about ${formatDuration((this.#total - this.#done) / rate)}`;
  }

  /** The words beside the bar: what the numbers count, the errors, the time left. */
  barLabel(): string {
    return `${this.#done}/${this.#total} dialogues finished | ${this.#errors} ended in error | ${this.eta()}`;
  }

  /** The plain progress line: done, errors, rate, time left. */
  line(): string {
    const percent = this.#total === 0 ? 100 : (100 * this.#done) / this.#total;
    const elapsed = (this.#now() - this.#startedAt) / 1000;
    const rate = this.#done > 0 && elapsed > 0 ? `, ${(this.#done / elapsed).toFixed(2)} dialogues/s` : "";
    return `progress: ${this.#done}/${this.#total} dialogues (${percent.toFixed(0)}%), ${this.#errors} error(s)${rate}, ${this.eta()}, ${formatDuration(elapsed)} elapsed`;
  }

  stop(): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.options.stream.write(`${this.line()}\n`);
    }
    this.#bar?.stop();
    this.#bar = undefined;
  }
}
