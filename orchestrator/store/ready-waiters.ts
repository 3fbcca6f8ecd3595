// Callers waiting on the sample store for ready samples: each checks again when woken (a sample stored or given
// back), at its own next deadline, and gives up on its timeout or abort. Ignores what is enough: the caller says.
export class ReadyWaiters {
  private readonly checks = new Set<() => void>();

  /** Every waiter checks its condition again. */
  wakeAll(): void {
    for (const check of this.checks) check();
  }

  /**
   * Resolves once `satisfied()` holds (checked now, on each wake and at the time `nextCheckAt()` names, when it names
   * one), after `timeoutMs`, or when `signal` aborts.
   */
  wait(satisfied: () => boolean, nextCheckAt: () => number | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let deadline: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(deadline);
        this.checks.delete(check);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const check = () => {
        if (satisfied()) return finish();
        const at = nextCheckAt();
        clearTimeout(deadline);
        if (at !== null) deadline = setTimeout(check, Math.max(0, at - Date.now()));
      };
      const timer = setTimeout(finish, timeoutMs);
      this.checks.add(check);
      signal?.addEventListener("abort", finish);
      check();
    });
  }
}
