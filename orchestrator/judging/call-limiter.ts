// A counting semaphore: at most `limit` judge and teacher calls in flight at once, the rest wait in order.
// Owns only the slots; what a call does and how long it may take are the caller's business.

export class CallLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // a waiter is handed the finishing call's slot as it is (active stays counted): a call that arrives before the
    // waiter resumes finds no free slot, so at most `limit` run at once
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
