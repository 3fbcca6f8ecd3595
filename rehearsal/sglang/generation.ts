// One /generate request inside the stand-in server: walks the Responder's planned tokens one per step, with
// SGLang's finish rules (stop token, stop string, max_new_tokens, abort after one more step). No HTTP here.

export type FinishReason =
  | { type: "stop"; matched: number | string | null }
  | { type: "length"; length: number }
  | { type: "abort"; message: string; status_code: number | null; err_type: string | null };

export interface GenerationLimits {
  maxNewTokens: number;
  stopTokenIds: ReadonlySet<number>;
  stopStrings: readonly string[];
  skipSpecialTokens: boolean;
  noStopTrim: boolean;
}

/** What the server lets a generation do between steps: wait the per-token delay, and hold while paused in place. */
export interface GenerationGate {
  tokenDelayMs(): number;
  /** Resolves when generation may go on (immediately unless the server is paused in place / retract). */
  whenRunning(): Promise<void>;
}

export class StandinGeneration {
  readonly outputIds: number[] = [];
  readonly outputLogprobs: number[] = [];
  finishReason: FinishReason | null = null;
  readonly startedAt = Date.now();
  private abortRequested = false;
  private wake: (() => void) | null = null;
  private stopText: string | null = null;

  constructor(
    readonly rid: string,
    readonly inputIds: readonly number[],
    private readonly planIds: readonly number[],
    private readonly planLogprobs: readonly number[],
    private readonly limits: GenerationLimits,
    private readonly decode: (ids: readonly number[], options: { skipSpecialTokens: boolean }) => string,
  ) {}

  get aborted(): boolean {
    return this.abortRequested;
  }

  /** Pause(abort) / abort_request: the running request takes one more step, then finishes with abort. */
  requestAbort(): void {
    this.abortRequested = true;
    this.wake?.();
  }

  /** Cumulative text as SGLang returns it: special tokens skipped, matched stop trimmed, no half characters. */
  text(): string {
    if (this.stopText !== null) return this.stopText;
    const full = this.decode(this.outputIds, { skipSpecialTokens: this.limits.skipSpecialTokens });
    if (this.finishReason === null) return full.replace(/\uFFFD+$/u, "");
    return full;
  }

  /** Runs to the end; yields after every token (and once at the finish). */
  async *run(gate: GenerationGate): AsyncGenerator<void> {
    if (this.limits.maxNewTokens === 0) {
      this.finishReason = { type: "length", length: 0 };
      return;
    }
    for (let step = 0; ; step += 1) {
      if (!this.abortRequested) await this.sleep(gate.tokenDelayMs());
      if (!this.abortRequested) await Promise.race([gate.whenRunning(), this.abortSignal()]);
      const token = this.planIds[step];
      if (token === undefined) {
        this.finishReason = this.abortRequested ? abortReason() : { type: "length", length: this.outputIds.length };
        yield;
        return;
      }
      this.outputIds.push(token);
      this.outputLogprobs.push(this.planLogprobs[step] ?? -0.1);
      this.finishReason = this.finishAfter(token);
      yield;
      if (this.finishReason !== null) return;
    }
  }

  private finishAfter(token: number): FinishReason | null {
    if (this.abortRequested) return abortReason();
    if (this.limits.stopTokenIds.has(token)) return { type: "stop", matched: token };
    if (this.limits.stopStrings.length > 0) {
      const text = this.decode(this.outputIds, { skipSpecialTokens: this.limits.skipSpecialTokens });
      let best: { at: number; stop: string } | null = null;
      for (const stop of this.limits.stopStrings) {
        const at = stop.length > 0 ? text.indexOf(stop) : -1;
        if (at >= 0 && (best === null || at < best.at)) best = { at, stop };
      }
      if (best) {
        this.stopText = this.limits.noStopTrim ? text : text.slice(0, best.at);
        return { type: "stop", matched: best.stop };
      }
    }
    if (this.outputIds.length >= this.limits.maxNewTokens) return { type: "length", length: this.outputIds.length };
    return null;
  }

  private abortSignal(): Promise<void> {
    return new Promise((resolve) => {
      if (this.abortRequested) resolve();
      else this.wake = resolve;
    });
  }

  private async sleep(ms: number): Promise<void> {
    if (ms <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), this.abortSignal()]);
    clearTimeout(timer);
  }
}

export function abortReason(): FinishReason {
  return { type: "abort", message: "Aborted", status_code: null, err_type: null };
}
