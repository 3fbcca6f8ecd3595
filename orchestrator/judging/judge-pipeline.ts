// Turns closed main turns into samples, and owns their judging life cycle: which turn is judged when (judging slots,
// the bounded backlog, stale turns skipped), held feedback and re-judging, the record written and the event emitted
// for each, and draining at shutdown. How one turn is decided: turn-judge.ts; episode steps: episode-step-judge.ts.
import { setMaxListeners } from "node:events";
import { opdTeacher, teacherTemperature, type Recipe } from "../../contracts/recipe.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { EventBus } from "../event-bus.ts";
import { JudgementRecords, type JudgementRecord } from "../records/judgement-records.ts";
import { StalenessPolicy } from "../weights/staleness-policy.ts";
import { followVersionEvent } from "../weights/version-events.ts";
import { WeightVersionTracker } from "../weights/weight-version-tracker.ts";
import { CallLimiter } from "./call-limiter.ts";
import { EpisodeStepJudge, isEpisodeStep } from "./episode-step-judge.ts";
import { handleFeedbackRequest, type FeedbackHeaders, type FeedbackReply } from "./feedback-endpoint.ts";
import { JudgeClient } from "./judge-client.ts";
import { newJudgementRecord, type JudgingOutcome } from "./judgement-outcome.ts";
import { TeacherScorer } from "./teacher-scorer.ts";
import { TurnJudge } from "./turn-judge.ts";
import { TurnLedger } from "./turn-ledger.ts";
import { TurnVoter } from "./turn-voter.ts";

export interface JudgePipelineDeps {
  recipe: Recipe;
  judge: SglangClient;
  judgeTemplate: ChatTemplate;
  judgeTokenizer: ModelTokenizer;
  policyTemplate: ChatTemplate;
  policyTokenizer: ModelTokenizer;
  bus: EventBus;
  sink: SampleSink;
  recordsDir: string;
  /** First backoff between retries of one judge call (default 1000 ms, doubling). */
  retryBackoffMs?: number;
  /** A turn whose votes of one purpose ALL failed is judged again this many times (default 1) ... */
  turnRetries?: number;
  /** ... after this long (default 30 s). */
  turnRetryDelayMs?: number;
  /** The engines' weight version when judging starts (later ones come as bus events; default 0). */
  currentVersion?: number;
}

export class JudgePipeline {
  private readonly recipe: Recipe;
  private readonly turns: TurnJudge;
  private readonly records: JudgementRecords;
  private readonly ledger: TurnLedger;
  private readonly inflight = new Set<Promise<void>>();
  /**
   * Closed turns waiting for a judging slot, oldest first. A turn is judged when one of `maxJudging` slots frees
   * (twice judge.concurrency: enough turns to keep every judge call slot busy); when its slot comes it is skipped
   * if it is already stale (its sample would never be delivered); beyond judge.max_waiting_turns the oldest
   * waiting turn is skipped. A judge slower than the user leaves a bounded backlog of the newest turns, not an
   * ever-growing one of turns whose samples the store drops.
   */
  private readonly waiting: ClosedTurn[] = [];
  private judging = 0;
  private readonly maxJudging: number;
  /** The engines' weight version on this thread: the run's owner type, fed by the bus's weight events. */
  private readonly versions: WeightVersionTracker;
  private readonly staleness: StalenessPolicy;
  private readonly shutdown = new AbortController();
  private readonly unsubscribe: () => void;
  /** Steps of general-agent episodes, held until their episode's outcome and their task group are complete. */
  private readonly steps: EpisodeStepJudge;
  private closed = false;

  constructor(private readonly deps: JudgePipelineDeps) {
    this.recipe = deps.recipe;
    this.versions = new WeightVersionTracker(deps.currentVersion ?? 0);
    this.staleness = new StalenessPolicy(this.versions, deps.recipe.training.max_staleness);
    setMaxListeners(0, this.shutdown.signal); // every judge call in flight or waiting listens to it: no warning past 10
    const judge = deps.recipe.judge;
    const limiter = new CallLimiter(judge.concurrency);
    const settings = {
      votes: judge.votes,
      temperature: judge.temperature,
      maxNewTokens: judge.max_new_tokens,
      timeoutMs: judge.timeout_s * 1000,
      retries: judge.retries,
      backoffMs: deps.retryBackoffMs ?? 1000,
    };
    const client = new JudgeClient({ engine: deps.judge, template: deps.judgeTemplate, limiter, settings, signal: this.shutdown.signal });
    const voter = new TurnVoter({
      client,
      bus: deps.bus,
      signal: this.shutdown.signal,
      turnRetries: deps.turnRetries ?? 1,
      turnRetryDelayMs: deps.turnRetryDelayMs ?? 30_000,
    });
    const teacher = new TeacherScorer({
      engine: deps.judge,
      template: deps.policyTemplate,
      tokenizer: deps.policyTokenizer,
      limiter,
      settings,
      topk: deps.recipe.method === "opd" ? deps.recipe.opd.topk : 0,
      temperature: teacherTemperature(deps.recipe),
      window: judge.concurrency,
      place: opdTeacher(deps.recipe),
      signal: this.shutdown.signal,
    });
    this.records = new JudgementRecords(deps.recordsDir);
    this.ledger = new TurnLedger(deps.recipe.proxy.max_sessions);
    this.maxJudging = 2 * judge.concurrency;
    const reportError = this.reportError.bind(this);
    this.turns = new TurnJudge({ recipe: deps.recipe, voter, teacher, ledger: this.ledger, sink: deps.sink, signal: this.shutdown.signal, reportError });
    this.steps = new EpisodeStepJudge({
      recipe: deps.recipe,
      voter,
      ledger: this.ledger,
      sink: deps.sink,
      refusal: (turn, record) => this.turns.refusal(turn, record),
      settle: (turn, record, outcome) => this.settle(turn, record, outcome),
      track: (work) => this.track(work),
      reportError,
    });
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.type === "turn-end" && event.turnType === "main") {
        if (event.finishReason === "abort") this.ledger.noteAborted(event.sessionId, event.turn);
        else this.ledger.noteOpen(event.sessionId, event.turn);
      }
      if (event.type === "episode-end") this.steps.ended({ episodeId: event.episodeId, groupId: event.groupId, score: event.score, failure: event.failure, steps: event.steps });
      followVersionEvent(this.versions, event); // (a reset: slime restarted, its versions count from 0 again)
    });
  }

  /** Starts judging a closed turn in the background; never throws. */
  onTurnClosed(turn: ClosedTurn): void {
    try {
      if (this.closed) return;
      const entry = this.ledger.entry(turn.sessionId, turn.turn);
      if (entry && entry.state !== "open") return; // closed twice: judged once
      if (isEpisodeStep(turn)) this.steps.stepClosed(turn);
      this.launch(turn);
    } catch (error) {
      this.reportError("INTERNAL", `cannot start judging ${turn?.sessionId}:${turn?.turn}: ${(error as Error).message}`);
    }
  }

  /** POST /v1/feedback: explicit feedback (score and/or hint) for a turn. */
  handleFeedback(body: unknown, headers: FeedbackHeaders = {}): Promise<FeedbackReply> {
    return handleFeedbackRequest(body, headers, {
      method: this.recipe.method,
      ledger: this.ledger,
      rejudge: (turn) => this.launch(turn),
    });
  }

  /** Waits for in-flight judgements (then aborts what is left) and closes the records file. */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.inflight.size > 0 && Date.now() < deadline) {
      await settleWithin([...this.inflight], deadline - Date.now());
    }
    this.closed = true;
    this.steps.flush(); // (finished episodes of incomplete groups are trained as they are; see EpisodeBook.flush)
    await settleWithin([...this.inflight], Math.max(0, deadline - Date.now()));
    if (this.inflight.size > 0) {
      this.shutdown.abort(); // (waiting turns then start and end at once: "shutdown before the judge answered")
      const until = Date.now() + 2000;
      while (this.inflight.size > 0 && Date.now() < until) await settleWithin([...this.inflight], until - Date.now());
    }
    this.unsubscribe();
    await this.records.close();
  }

  /** Closed turns being judged or waiting for their turn (bounded by the backlog). */
  get pending(): number {
    return this.inflight.size + this.waiting.length;
  }

  private launch(turn: ClosedTurn): void {
    this.ledger.noteJudging(turn);
    if (!this.needsJudge(turn)) return this.start(turn, null); // decided at once: never waits, never pushes a turn out
    this.waiting.push(turn);
    const limit = this.recipe.judge.max_waiting_turns;
    if (this.waiting.length > limit) {
      const oldest = this.waiting.shift()!;
      this.start(oldest, { sample: null, skipped: `backlog full: more than ${limit} turns waiting for the judge (judge.max_waiting_turns); the oldest is not judged`, category: "backlog-full" });
    }
    this.pump();
  }

  /**
   * Whether judging the turn may call the judge: not for an unusable turn, nor for one with no next state and no
   * feedback held for it (the session's last turn at an idle timeout or at shutdown, when many close at once).
   */
  private needsJudge(turn: ClosedTurn): boolean {
    if (this.turns.refusal(turn) !== null) return false;
    return turn.nextState !== null || Boolean(this.ledger.entry(turn.sessionId, turn.turn)?.held);
  }

  /** Starts waiting turns while judging slots are free. */
  private pump(): void {
    while (this.judging < this.maxJudging && this.waiting.length > 0) {
      const turn = this.waiting.shift()!;
      this.start(turn, this.staleOutcome(turn));
    }
  }

  /** Judges a turn now, or records it with `outcome` (a turn not to judge). */
  private start(turn: ClosedTurn, outcome: JudgingOutcome | null): void {
    this.judging++;
    const judged = isEpisodeStep(turn) ? this.steps.judge(turn, outcome) : this.judgeTurn(turn, outcome);
    this.track(
      judged
        .catch((error: unknown) => {
          this.reportError("INTERNAL", `judging ${turn.sessionId}:${turn.turn} failed: ${(error as Error).message}`);
          this.ledger.noteJudged(turn, null);
        })
        .finally(() => {
          this.judging--;
          this.pump();
        }),
    );
  }

  /** Work drain waits for. */
  private track(work: Promise<void>): void {
    const task: Promise<void> = work
      .catch((error: unknown) => this.reportError("INTERNAL", (error as Error).message))
      .finally(() => this.inflight.delete(task));
    this.inflight.add(task);
  }

  /** A turn whose oldest token is already more than training.max_staleness versions behind: its sample would never be delivered. */
  private staleOutcome(turn: ClosedTurn): JudgingOutcome | null {
    const reason = this.staleness.staleReason(turn.weightVersions.map((span) => span.version));
    if (reason === null) return null;
    return {
      sample: null,
      skipped: `stale before judging: ${reason} (its sample would not be delivered)`,
      category: "stale",
    };
  }

  /**
   * The turn's judgement record written and announced, with the sample it made or why none; the ledger told first
   * (a step's was told when it was judged), so that feedback following the announcement finds the turn judged.
   */
  private async settle(turn: ClosedTurn, record: JudgementRecord, outcome: JudgingOutcome): Promise<void> {
    record.at = Date.now();
    record.sample = outcome.sample
      ? { id: outcome.sample.id, kind: outcome.sample.kind, reward: outcome.sample.reward, why: outcome.sample.why, masked: outcome.sample.lossMask.every((bit) => bit === 0) }
      : null;
    record.skipped = outcome.skipped;
    await this.records.write(record).catch((error: unknown) => this.reportError("INTERNAL", `cannot write the judgement record: ${(error as Error).message}`));
    if (!isEpisodeStep(turn)) this.ledger.noteJudged(turn, outcome.sample?.id ?? null);
    this.deps.bus.emit({
      type: "turn-judged",
      sessionId: turn.sessionId,
      turn: turn.turn,
      method: record.method,
      score: record.evalScore,
      hintAccepted: record.hint ? record.hint.kept !== null : record.explicit?.hint ? true : null,
      sample: record.sample ? { kind: record.sample.kind, reward: record.sample.reward, why: record.sample.why } : null,
      skipped: outcome.skipped,
      skipCategory: outcome.category,
    });
  }

  /** A chat turn decided (turn-judge.ts) or recorded with the outcome it was given, then settled. */
  private async judgeTurn(turn: ClosedTurn, decided: JudgingOutcome | null): Promise<void> {
    const explicit = this.turns.explicitFeedback(turn);
    const record = newJudgementRecord(turn, this.recipe.method, explicit);
    const outcome = decided ?? (await this.turns.decide(turn, explicit, record));
    await this.settle(turn, record, outcome);
    // Feedback that arrived while this turn was being judged: use it now if no sample was made.
    const entry = this.ledger.entry(turn.sessionId, turn.turn);
    if (!outcome.sample && entry?.held && !this.closed) this.launch(turn);
  }

  private reportError(code: "INTERNAL" | "JUDGE_FAILED", message: string): void {
    this.deps.bus.emit({ type: "error", source: "judge", code, message });
  }
}

/** Waits for the promises to settle, at most `ms`; clears its timer either way. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}
