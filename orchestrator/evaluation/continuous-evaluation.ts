// Continuous evaluation in `start`: the live served version once the engines are ready (the base), then again each
// time the weight version has advanced by every_versions; one evaluation at a time, in the background. Each result
// is a line of evaluations.jsonl (sessions in evaluation-sessions.jsonl) and an evaluation-done event; with
// evaluation.stop_if_worse, a version significantly below the best so far pauses training (held-out-guard.ts).
import path from "node:path";
import type { HeldOutDrop, VersionMetrics } from "../../contracts/evaluation.ts";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { EventBus } from "../event-bus.ts";
import { JsonlAppendFile } from "../records/jsonl-append-file.ts";
import type { EvaluationBasis } from "./evaluation-basis.ts";
import { dropMessage, HeldOutGuard } from "./held-out-guard.ts";
import type { WeightVersionTracker } from "../weights/weight-version-tracker.ts";
import { evaluationDoneEvent } from "./evaluation-announcement.ts";
import { evaluateVersion, type EvaluationPlan } from "./version-evaluation.ts";

export const EVALUATIONS_FILE = "evaluations.jsonl";
export const EVALUATION_SESSIONS_FILE = "evaluation-sessions.jsonl";

export interface ContinuousEvaluationOptions {
  bus: EventBus;
  weights: WeightVersionTracker;
  everyVersions: number;
  recordsDir: string;
  /** The run's id and evaluation basis, on every row (its first row is the run's base: evaluation-history.ts). */
  run: string | null;
  basis: EvaluationBasis;
  /** Built once the judge engine is known (slime announces its router in the bridge hello). */
  plan: () => EvaluationPlan | null;
  /** The traffic gate: evaluation starts once it is open. */
  ready: () => boolean;
  /** evaluation.stop_if_worse: called (after the evaluation-done event) with a version's drop below the best so far. */
  onDrop?: (drop: HeldOutDrop, message: string) => void;
}

export class ContinuousEvaluation {
  private readonly stop = new AbortController();
  private readonly results: JsonlAppendFile;
  private readonly sessions: JsonlAppendFile;
  private base: VersionMetrics | null = null;
  private lastEvaluated: number | null = null;
  private wake: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private baseTried = false;
  private readonly guard = new HeldOutGuard();

  constructor(private readonly options: ContinuousEvaluationOptions) {
    this.results = new JsonlAppendFile(path.join(options.recordsDir, EVALUATIONS_FILE));
    this.sessions = new JsonlAppendFile(path.join(options.recordsDir, EVALUATION_SESSIONS_FILE));
  }

  /** Whether the base's evaluation has been tried (done or failed): `start` holds its own episodes until then. */
  baseDone(): boolean {
    return this.baseTried;
  }

  start(): void {
    const unsubscribe = this.options.weights.onChange(() => this.wake?.());
    this.running = this.loop().finally(unsubscribe);
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.wake?.();
    await this.running;
    await this.results.close();
    await this.sessions.close();
  }

  private due(): boolean {
    return this.lastEvaluated === null || this.options.weights.current() - this.lastEvaluated >= this.options.everyVersions;
  }

  private async loop(): Promise<void> {
    const { signal } = this.stop;
    while (!this.options.ready()) if (!(await sleepUnlessAborted(1000, signal))) return;
    while (!signal.aborted) {
      if (this.due()) await this.evaluateOnce().catch((error: unknown) => this.report(error));
      else await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  private async evaluateOnce(): Promise<void> {
    const plan = this.options.plan();
    if (plan === null) {
      await sleepUnlessAborted(2000, this.stop.signal); // (no judge engine known yet)
      return;
    }
    const version = this.options.weights.current();
    this.lastEvaluated = version;
    const { metrics, sessions } = await evaluateVersion(plan, String(version), this.base, this.stop.signal).finally(() => (this.baseTried = true));
    if (this.stop.signal.aborted) return;
    metrics.versionAtEnd = String(this.options.weights.current());
    metrics.served = "live";
    Object.assign(metrics, { run: this.options.run, baseRun: this.base ? this.options.run : null, basis: this.options.basis });
    this.base ??= metrics;
    await Promise.all(sessions.map((session) => this.sessions.append({ version: metrics.version, ...session })));
    await this.results.append(metrics);
    this.options.bus.emit(evaluationDoneEvent(metrics));
    const drop = this.guard.check(metrics);
    if (drop) this.options.onDrop?.(drop, dropMessage(drop));
  }

  private report(error: unknown): void {
    this.options.bus.emit({ type: "error", source: "evaluation", code: "EVALUATION_FAILED", message: (error as Error).message });
  }
}
