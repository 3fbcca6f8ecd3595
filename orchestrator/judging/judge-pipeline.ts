// Turns closed main turns into samples, and alone owns their judging life cycle: which turn is judged when (judging
// slots, the bounded backlog, stale turns skipped), the ledger's writes, held feedback and re-judging, the episode
// book, storing each sample, the record built once from its judgement and the events. How one turn is judged (a
// value): turn-judge.ts; episode steps: episode-step-judge.ts. Hears the run's events only through follow().
import { setMaxListeners } from "node:events";
import type { RunEvent } from "../../contracts/events.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { EventBus } from "../event-bus.ts";
import { EpisodeBook, type SettledGroup } from "../episodes/episode-book.ts";
import { turnRefusal } from "../samples/sample-gate.ts";
import { JudgementRecords, type JudgementRecord } from "../records/judgement-records.ts";
import type { StalenessPolicy } from "../weights/staleness-policy.ts";
import { CallLimiter } from "./call-limiter.ts";
import { judgeStep, stepRecordPart, stepVerdict, type EpisodeStep, type StepJudgement } from "./episode-step-judge.ts";
import { handleFeedbackRequest, type FeedbackHeaders, type FeedbackReply } from "./feedback-endpoint.ts";
import { JudgeClient } from "./judge-client.ts";
import { explicitFeedback } from "./explicit-feedback.ts";
import { judgementRecord, turnRecord, unjudged, type Judgement, type NotJudged, type Verdict } from "./judgement.ts";
import { TeacherScorer } from "./teacher-scorer.ts";
import { judgeTurn, type TurnJudgeDeps } from "./turn-judge.ts";
import type { TurnEnded } from "./open-turns.ts";
import { TurnLedger } from "./turn-ledger.ts";
import { TurnVoter } from "./turn-voter.ts";

/** What became of a judged turn's sample: stored, or why not (the verdict's reason, or the sink's refusal). */
type Settled = { sample: Sample | null; skipped: string | null; category: Verdict["category"] };

export interface JudgePipelineDeps {
  recipe: Recipe;
  judge: SglangClient;
  judgeTemplate: ChatTemplate;
  judgeTokenizer: ModelTokenizer;
  policyTemplate: ChatTemplate;
  policyTokenizer: ModelTokenizer;
  /** Where judging's events go (judge-vote, turn-judged, error); the run's events come in through follow(), never from here. */
  bus: EventBus;
  sink: SampleSink;
  recordsDir: string;
  /** First backoff between retries of one judge call (default 1000 ms, doubling). */
  retryBackoffMs?: number;
  /** A turn whose votes of one purpose ALL failed is judged again this many times (default 1) ... */
  turnRetries?: number;
  /** ... after this long (default 30 s). */
  turnRetryDelayMs?: number;
  /** The run's staleness rule over the run's weight version (on the judging thread, read from its tracker's shared cell). */
  staleness: StalenessPolicy;
}

export class JudgePipeline {
  private readonly recipe: Recipe;
  private readonly turnJudgeDeps: TurnJudgeDeps;
  private readonly voter: TurnVoter;
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
  private readonly staleness: StalenessPolicy;
  private readonly shutdown = new AbortController();
  /** Steps of general-agent episodes, held until their episode's outcome and their task group are complete. */
  private readonly book: EpisodeBook<StepJudgement>;
  private readonly sweep: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly deps: JudgePipelineDeps) {
    this.recipe = deps.recipe;
    this.staleness = deps.staleness;
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
    this.voter = new TurnVoter({
      client,
      onVote: (turn, purpose, vote) =>
        deps.bus.emit({ type: "judge-vote", sessionId: turn.sessionId, turn: turn.turn, purpose, vote: vote.score, ok: vote.score !== null, ...(vote.error ? { error: vote.error } : {}) }),
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
      temperature: deps.recipe.derived.teacherTemperature,
      window: judge.concurrency,
      place: deps.recipe.derived.teacher,
      signal: this.shutdown.signal,
    });
    this.records = new JudgementRecords(deps.recordsDir);
    this.ledger = new TurnLedger(deps.recipe.proxy.max_sessions);
    this.maxJudging = 2 * judge.concurrency;
    this.turnJudgeDeps = { recipe: deps.recipe, voter: this.voter, teacher, policy: { template: deps.policyTemplate, tokenizer: deps.policyTokenizer }, signal: this.shutdown.signal };
    const episodes = deps.recipe.episodes;
    this.book = new EpisodeBook({
      samplesPerTask: episodes.samples_per_task,
      prmStepCoef: episodes.prm_step_coef,
      groupTimeoutMs: episodes.group_timeout_s * 1000,
      onGroup: (group) => this.track(this.settleGroup(group)),
    });
    this.sweep = setInterval(() => this.book.sweep(), Math.min(60_000, episodes.group_timeout_s * 250));
    this.sweep.unref();
  }

  /**
   * A main turn that ended before it closed (told only when feedback may need it: open-turns.ts): feedback for an
   * open turn is held until it closes; an aborted one is never closed or trained.
   */
  turnEnded(notice: TurnEnded): void {
    if (notice.aborted) this.ledger.noteAborted(notice.sessionId, notice.turn);
    else this.ledger.noteOpen(notice.sessionId, notice.turn);
  }

  /** An event of the run that judging follows (judgingFollows): an episode's outcome. */
  follow(event: RunEvent): void {
    if (event.type === "episode-end") this.book.ended({ episodeId: event.episodeId, groupId: event.groupId, score: event.score, failure: event.failure, steps: event.steps });
  }

  /** Starts judging a closed turn in the background; never throws. */
  onTurnClosed(turn: ClosedTurn): void {
    try {
      if (this.closed) return;
      const entry = this.ledger.entry(turn.sessionId, turn.turn);
      if (entry && entry.state !== "open") return; // closed twice: judged once
      if (isEpisodeStep(turn)) this.book.stepClosed(turn);
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
    clearInterval(this.sweep);
    this.book.flush(); // (finished episodes of incomplete groups are trained as they are; see EpisodeBook.flush)
    await settleWithin([...this.inflight], Math.max(0, deadline - Date.now()));
    if (this.inflight.size > 0) {
      this.shutdown.abort(); // (waiting turns then start and end at once: "shutdown before the judge answered")
      const until = Date.now() + 2000;
      while (this.inflight.size > 0 && Date.now() < until) await settleWithin([...this.inflight], until - Date.now());
    }
    await this.records.close();
  }

  /** Closed turns being judged or waiting for their turn (bounded by the backlog). */
  get pending(): number {
    return this.inflight.size + this.waiting.length;
  }

  private launch(turn: ClosedTurn): void {
    this.ledger.noteJudging(turn);
    // decided at once (never trainable, or no judge call to make): never waits, never pushes a turn out
    const refused = turnRefusal(turn, this.recipe.training.sample_gate);
    if (refused) return this.start(turn, refused);
    if (!this.needsJudge(turn)) return this.start(turn, null);
    this.waiting.push(turn);
    const limit = this.recipe.judge.max_waiting_turns;
    if (this.waiting.length > limit) {
      const oldest = this.waiting.shift()!;
      this.start(oldest, { skipped: `backlog full: more than ${limit} turns waiting for the judge (judge.max_waiting_turns); the oldest is not judged`, category: "backlog-full", gate: null });
    }
    this.pump();
  }

  /**
   * Whether judging a trainable turn may call the judge: not for one with no next state and no feedback held for it
   * (the session's last turn at an idle timeout or at shutdown, when many close at once).
   */
  private needsJudge(turn: ClosedTurn): boolean {
    return turn.nextState !== null || Boolean(this.ledger.entry(turn.sessionId, turn.turn)?.held);
  }

  /** Starts waiting turns while judging slots are free. */
  private pump(): void {
    while (this.judging < this.maxJudging && this.waiting.length > 0) {
      const turn = this.waiting.shift()!;
      this.start(turn, this.staleOutcome(turn));
    }
  }

  /** Judges a turn now, or records it with why it is not judged. */
  private start(turn: ClosedTurn, notJudged: NotJudged | null): void {
    this.judging++;
    const judged = isEpisodeStep(turn) ? this.judgeStep(turn, notJudged) : this.judgeTurn(turn, notJudged);
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
  private staleOutcome(turn: ClosedTurn): NotJudged | null {
    const reason = this.staleness.staleReason(turn.weightVersions.map((span) => span.version));
    if (reason === null) return null;
    return { skipped: `stale before judging: ${reason} (its sample would not be delivered)`, category: "stale", gate: null };
  }

  /**
   * A chat turn judged (turn-judge.ts), or recorded with why it is not; then its sample stored, the ledger told, the
   * record written and the turn announced (the ledger first, so that feedback following the announcement finds the
   * turn judged).
   */
  private async judgeTurn(turn: ClosedTurn, notJudged: NotJudged | null): Promise<void> {
    const explicit = explicitFeedback(turn, this.ledger.takeHeld(turn.sessionId, turn.turn));
    const judgement: Judgement = notJudged ? unjudged(this.recipe.method, notJudged, explicit) : await judgeTurn(turn, explicit, this.ledger, this.turnJudgeDeps);
    if (judgement.failure) this.reportError("JUDGE_FAILED", judgement.failure);
    // (counted before the sample is stored, so that a turn of the session judged meanwhile sees it; taken back if not stored)
    if (judgement.verdict.sample && judgement.effective) this.ledger.markEffective(turn.sessionId);
    const settled = await this.store(judgement.verdict);
    if (!settled.sample && judgement.verdict.sample && judgement.effective) this.ledger.unmarkEffective(turn.sessionId);
    const record = turnRecord(turn, judgement, settled, Date.now());
    await this.write(record);
    this.ledger.noteJudged(turn, settled.sample?.id ?? null);
    this.announce(turn, record, settled);
    // Feedback that arrived while this turn was being judged: use it now if no sample was made.
    const entry = this.ledger.entry(turn.sessionId, turn.turn);
    if (!settled.sample && entry?.held && !this.closed) this.launch(turn);
  }

  /** A step's score, held in the episode book until its episode's outcome and its task group are in. */
  private async judgeStep(turn: EpisodeStep, notJudged: NotJudged | null): Promise<void> {
    const judgement = await judgeStep(turn, notJudged, this.voter);
    this.ledger.noteJudged(turn, null);
    this.book.stepJudged({ turn, stepScore: judgement.stepScore, unusable: judgement.unusable, carried: judgement });
  }

  /** A settled task group: one sample per trainable step (reward r_t, the standardised advantage), records, events. */
  private async settleGroup(group: SettledGroup<StepJudgement>): Promise<void> {
    for (const step of group.steps) {
      const judgement = step.carried;
      const settled = await this.store(stepVerdict(step, this.recipe.episodes.prm_step_coef));
      const record = judgementRecord({
        turn: step.turn,
        method: this.recipe.method,
        attempt: judgement.attempt,
        explicit: null,
        evaluation: judgement.evaluation,
        hint: null,
        teacher: null,
        evalScore: judgement.stepScore,
        settled,
        gate: judgement.gate,
        episode: stepRecordPart(step, group),
        at: Date.now(),
      });
      await this.write(record);
      this.announce(step.turn, record, settled); // (the ledger was told when the step was judged)
    }
  }

  /** The verdict's sample put into the sink; when the sink refuses it, no sample with the reason (and the error reported). */
  private async store(verdict: Verdict): Promise<Settled> {
    if (!verdict.sample) return verdict;
    try {
      await this.deps.sink.put(verdict.sample);
    } catch (error) {
      this.reportError("INTERNAL", `sample ${verdict.sample.id} was not stored: ${(error as Error).message}`);
      return { sample: null, skipped: `the sink did not store the sample: ${(error as Error).message}`, category: "sink-failed" };
    }
    return verdict;
  }

  private async write(record: JudgementRecord): Promise<void> {
    await this.records.write(record).catch((error: unknown) => this.reportError("INTERNAL", `cannot write the judgement record: ${(error as Error).message}`));
  }

  /** turn-judged: the sample the turn made, or why none. */
  private announce(turn: ClosedTurn, record: JudgementRecord, settled: Settled): void {
    this.deps.bus.emit({
      type: "turn-judged",
      sessionId: turn.sessionId,
      turn: turn.turn,
      method: record.method,
      score: record.evalScore,
      hintAccepted: record.hint ? record.hint.kept !== null : record.explicit?.hint ? true : null,
      sample: record.sample ? { kind: record.sample.kind, reward: record.sample.reward, why: record.sample.why } : null,
      skipped: settled.skipped,
      skipCategory: settled.category,
      ...(record.hybrid ? { hybrid: { case: record.hybrid.case, candidates: record.hybrid.candidates } } : {}),
    });
  }

  private reportError(code: "INTERNAL" | "JUDGE_FAILED", message: string): void {
    this.deps.bus.emit({ type: "error", source: "judge", code, message });
  }
}

/** A step of a general-agent episode (judged by its step score, trained with its group), not a chat turn. */
function isEpisodeStep(turn: ClosedTurn): turn is EpisodeStep {
  return turn.episode !== undefined;
}

/** Waits for the promises to settle, at most `ms`; clears its timer either way. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}
