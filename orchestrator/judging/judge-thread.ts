// Judging on its own thread: the proxy's thread hands closed turns (and feedback, and the judge router's URL) to a
// worker running the JudgePipeline (judge-worker.ts), and gets back events for its bus and samples for its sink.
// Judging's CPU (judge prompts, teacher prompts of 10K+ tokens, parsing the engines' answers) then never delays a
// user's turn on the proxy's event loop. Owns the worker's life: start, restart after a crash, drain, stop.
import type { Worker } from "node:worker_threads";
import { OpenclawRlError, type ErrorCode } from "../../contracts/errors.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { EventBus } from "../event-bus.ts";
import { startTsWorker } from "../../lib/worker-thread.ts";
import type { WeightVersionTracker } from "../weights/weight-version-tracker.ts";
import type { FeedbackHeaders, FeedbackReply } from "./feedback-endpoint.ts";
import { OpenTurns, turnEndedNotice } from "./open-turns.ts";
import { judgingFollows, packTurn, unpackSample, type FromJudgeWorker, type JudgeWorkerData, type ToJudgeWorker } from "./judge-thread-protocol.ts";

export interface JudgeThreadOptions {
  data: Omit<JudgeWorkerData, "versions">;
  bus: EventBus;
  sink: SampleSink;
  /** The run's weight-version owner: every worker (a restarted one too) reads its version from its shared cell. */
  versions: WeightVersionTracker;
  /** Longest wait for the worker to load its tokenizers (default 120 s). */
  startTimeoutMs?: number;
  /** Restarts after the worker dies unexpectedly, over the run (default 3); then judging stays off, said on the bus. */
  maxRestarts?: number;
}

const ENTRY = new URL("./judge-worker.ts", import.meta.url);

function unavailable(message: string): FeedbackReply {
  return { status: 503, body: { error: { message, type: "unavailable", field: null } } };
}

export class JudgeThread {
  private worker: Worker | null = null;
  private readonly feedback = new Map<number, (reply: FeedbackReply) => void>();
  private nextFeedback = 1;
  private restarts = 0;
  private stopping = false;
  private drained: (() => void) | null = null;
  private readonly unsubscribe: () => void;
  private readonly open: OpenTurns;

  private constructor(private readonly options: JudgeThreadOptions) {
    // The pipeline hears of a main turn when it closes; of one still open (or aborted) only with a feedback request
    // (open-turns.ts). It learns an episode's outcome from episode-end (judgingFollows); the engines' weight version
    // (to skip turns already stale) it reads from the run's tracker (JudgeWorkerData.versions).
    this.open = new OpenTurns(options.data.recipe.proxy.max_sessions);
    this.unsubscribe = options.bus.subscribe((event) => {
      const notice = turnEndedNotice(event);
      if (notice) {
        const pushedOut = this.open.noteEnded(notice);
        if (pushedOut) this.post({ type: "turns-ended", turns: [pushedOut] });
      } else if (judgingFollows(event)) this.post({ type: "event", event });
    });
  }

  /** Starts the worker and waits until it has loaded its tokenizers; rejects (INTERNAL, the worker's reason) otherwise. */
  static async start(options: JudgeThreadOptions): Promise<JudgeThread> {
    const thread = new JudgeThread(options);
    try {
      await thread.spawn();
    } catch (error) {
      thread.unsubscribe();
      throw error;
    }
    return thread;
  }

  /** Hands a closed turn to judging; never throws. */
  onTurnClosed(turn: ClosedTurn): void {
    if (this.stopping) return;
    try {
      this.open.closed(turn.sessionId, turn.turn);
      const packed = packTurn(turn);
      this.post({ type: "turn-closed", turn: packed.turn }, packed.transfer);
    } catch (error) {
      this.report(`cannot hand ${turn?.sessionId}:${turn?.turn} to judging: ${(error as Error).message}`);
    }
  }

  /** POST /v1/feedback, answered by the pipeline on the judging thread. */
  handleFeedback(body: unknown, headers: FeedbackHeaders = {}): Promise<FeedbackReply> {
    if (this.stopping || !this.worker) return Promise.resolve(unavailable("judging is not running; feedback cannot be taken now"));
    const id = this.nextFeedback++;
    const ended = this.open.take();
    if (ended.length > 0) this.post({ type: "turns-ended", turns: ended });
    return new Promise((resolve) => {
      this.feedback.set(id, resolve);
      // headers as a plain object of strings (IncomingMessage's own object need not survive the copy to the thread)
      this.post({ type: "feedback", id, body, headers: { ...headers } });
    });
  }

  /** Points the judge client at another engine or router (slime's PRM router, once announced). */
  pointJudge(url: string): void {
    if (this.options.data.judgeUrl === url) return;
    this.options.data.judgeUrl = url;
    this.post({ type: "judge-url", url });
  }

  /** Waits for judgements in flight (as JudgePipeline.drain), then ends the worker. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.unsubscribe();
    const worker = this.worker;
    if (worker) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        worker.once("exit", () => resolve());
        // the pipeline aborts what is left at the deadline and waits at most 2 s more; then the worker is ended anyway
        timer = setTimeout(resolve, Math.max(0, timeoutMs) + 5000);
        worker.postMessage({ type: "drain", timeoutMs } satisfies ToJudgeWorker);
      });
      clearTimeout(timer);
      await worker.terminate();
    }
    this.worker = null;
    this.answerPendingFeedback("judging stopped before answering");
  }

  private spawn(): Promise<void> {
    const data: JudgeWorkerData = { ...this.options.data, versions: this.options.versions.shared };
    const worker = startTsWorker(ENTRY, data);
    worker.unref();
    this.worker = worker;
    const started = new Promise<void>((resolve, reject) => {
      const timeoutMs = this.options.startTimeoutMs ?? 120_000;
      const timer = setTimeout(() => fail({ code: "TIMEOUT", message: `it did not load its tokenizers within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
      const fail = (reason: { code: string; message: string; path?: string; hint?: string }) => {
        clearTimeout(timer);
        void worker.terminate();
        reject(new OpenclawRlError(reason.code as ErrorCode, `the judging thread did not start: ${reason.message}`, { path: reason.path, hint: reason.hint }));
      };
      const exitedEarly = (code: number): void => fail({ code: "INTERNAL", message: `it exited with code ${code}` });
      worker.once("exit", exitedEarly);
      worker.on("message", (message: FromJudgeWorker) => {
        if (message.type === "ready") {
          clearTimeout(timer);
          worker.off("exit", exitedEarly); // from here on an exit is a crash: exited() handles it
          resolve();
        } else if (message.type === "start-failed") fail(message);
        else this.receive(worker, message);
      });
    });
    worker.on("error", (error) => this.report(`the judging thread failed: ${error.message}`));
    void started.then(
      () => worker.on("exit", (code) => this.exited(worker, code)),
      () => undefined,
    );
    return started;
  }

  private receive(worker: Worker, message: FromJudgeWorker): void {
    switch (message.type) {
      case "event":
        this.options.bus.emit(message.event);
        return;
      case "sample": {
        const answer = (error: string | null, outcome?: PutOutcome) => {
          if (worker === this.worker) worker.postMessage({ type: "sample-stored", id: message.id, error, outcome } satisfies ToJudgeWorker);
        };
        try {
          this.options.sink.put(unpackSample(message.sample)).then(
            (outcome) => answer(null, outcome),
            (error: unknown) => answer((error as Error).message),
          );
        } catch (error) {
          answer((error as Error).message);
        }
        return;
      }
      case "feedback-reply": {
        const resolve = this.feedback.get(message.id);
        this.feedback.delete(message.id);
        resolve?.(message.reply);
        return;
      }
      case "drained":
        this.drained?.();
        return;
    }
  }

  /** The worker ended on its own (a crash): judging starts again on a new one, a bounded number of times. */
  private exited(worker: Worker, code: number): void {
    if (worker !== this.worker || this.stopping) return;
    this.worker = null;
    this.answerPendingFeedback("the judging thread stopped; send the feedback again");
    const restartsLeft = (this.options.maxRestarts ?? 3) - this.restarts;
    if (restartsLeft <= 0) {
      this.report(`the judging thread exited (code ${code}); no restarts left, so closed turns are recorded in turns.jsonl but no longer judged until openclaw-rl is restarted`);
      return;
    }
    this.restarts += 1;
    this.report(`the judging thread exited (code ${code}); turns it was judging are lost; starting it again (${restartsLeft - 1} restart(s) left)`);
    this.spawn().then(
      () => {
        if (this.stopping) void this.worker?.terminate();
      },
      (error: unknown) => {
        this.worker = null;
        this.report((error as Error).message);
      },
    );
  }

  private post(message: ToJudgeWorker, transfer: ArrayBuffer[] = []): void {
    try {
      this.worker?.postMessage(message, transfer);
    } catch (error) {
      this.report(`cannot reach the judging thread: ${(error as Error).message}`);
    }
  }

  private answerPendingFeedback(reason: string): void {
    for (const resolve of this.feedback.values()) resolve(unavailable(reason));
    this.feedback.clear();
  }

  private report(message: string): void {
    this.options.bus.emit({ type: "error", source: "judge", code: "INTERNAL", message });
  }
}
