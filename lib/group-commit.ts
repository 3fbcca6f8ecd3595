// Group commit: values added while a write is in progress go out together in the next write (one write and one
// fsync for many), each caller resolved with its own result or rejected with that write's error. Owns the queue
// only; what a write does (and whether the owner is closed) is the owner's.
interface Waiting<Value, Result> {
  value: Value;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<Value, Result> {
  private pending: Waiting<Value, Result>[] = [];
  private flushing: Promise<void> | null = null;
  private lastWriteAt = -Infinity;

  /**
   * `write` commits a group in order and returns one result per value; if it throws, every value of the group fails.
   * `minIntervalMs`: a write starts at least this long after the previous one started (values wait and join it), so
   * a steady stream of values costs at most one write (and fsync) per interval, not one per value or two.
   */
  constructor(
    private readonly write: (values: Value[]) => Promise<Result[]>,
    private readonly options: { minIntervalMs?: number } = {},
  ) {}

  add(value: Value): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.pending.push({ value, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves once every value added so far is written (or has failed). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private waitBeforeWrite(): number {
    return this.lastWriteAt + (this.options.minIntervalMs ?? 0) - performance.now();
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        // (a loop: a timer may fire up to a millisecond early by performance.now(), timers keeping whole milliseconds)
        for (let wait = this.waitBeforeWrite(); wait > 0; wait = this.waitBeforeWrite()) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastWriteAt = performance.now();
        const group = this.pending;
        this.pending = [];
        try {
          const results = await this.write(group.map((entry) => entry.value));
          group.forEach((entry, index) => entry.resolve(results[index]!));
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
