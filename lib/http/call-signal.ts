// One call's abort signal (an engine call, a proxied request): a timeout and an outer signal on one AbortController
// with plain listeners, released by dispose(). Knows nothing of HTTP.

/**
 * Aborted when its timer fires (reason `timedOut()`), when the outer signal aborts (reason `outerAborted(its reason)`)
 * or by abort(reason), whichever comes first. One controller and plain listeners: AbortSignal.timeout and
 * AbortSignal.any cost more per call. dispose() clears the timer and the listener.
 */
export class CallSignal {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onOuterAbort: () => void;

  constructor(
    timeoutMs: number,
    timedOut: () => Error,
    private readonly outer: AbortSignal | undefined,
    outerAborted: (reason: unknown) => unknown,
  ) {
    this.timer = setTimeout(() => this.controller.abort(timedOut()), timeoutMs);
    this.onOuterAbort = () => this.controller.abort(outerAborted(outer?.reason));
    if (outer?.aborted) this.onOuterAbort();
    else outer?.addEventListener("abort", this.onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts with `reason` unless it is aborted already. */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** Starts the timer again (a stream's idle timeout, after each chunk). */
  refresh(): void {
    this.timer.refresh();
  }

  /** The timer alone does not keep the process running. */
  unref(): void {
    this.timer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }
}
