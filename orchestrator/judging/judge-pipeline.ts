// Turns closed main turns into samples: explicit feedback or judge votes (binary / opd / combine), teacher scoring,
// the sample put into the sink, one judgement record per turn and events. Owns the judging life cycle of
// a turn (held feedback, bounded retries of failed judgements, re-judging); HTTP routing is the proxy's.
import { setMaxListeners } from "node:events";
import type { SkipCategory } from "../../contracts/events.ts";
import { teacherTemperature, type Recipe } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { EventBus } from "../event-bus.ts";
import { CallLimiter } from "./call-limiter.ts";
import { JudgeClient } from "./judge-client.ts";
import { chooseHint, describeTally, tallyEvalVotes, type Vote } from "./vote-tally.ts";
import { JudgementRecords, JUDGEMENT_RECORD_VERSION, type JudgementRecord, type RecordedVote } from "../records/judgement-records.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { StalenessPolicy } from "../weights/staleness-policy.ts";
import { followVersionEvent } from "../weights/version-events.ts";
import { WeightVersionTracker } from "../weights/weight-version-tracker.ts";
import { detectExplicitScore, type ExplicitFeedback } from "./explicit-feedback.ts";
import { handleFeedbackRequest, type FeedbackHeaders, type FeedbackReply } from "./feedback-endpoint.ts";
import { decideSample, METHOD_NEEDS, type JudgedSignals } from "../samples/sample-decision.ts";
import { buildSample, unusableTurnReason } from "../samples/sample-builder.ts";
import { gateTurn } from "../samples/sample-gate.ts";
import { TeacherScorer, type TeacherOutcome } from "./teacher-scorer.ts";
import { TurnLedger } from "./turn-ledger.ts";
import { TurnVoter } from "./turn-voter.ts";
import { EpisodeBook, type SettledGroup, type SettledStep } from "../episodes/episode-book.ts";
import { stepScoreOf } from "../episodes/step-rewards.ts";

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


interface Outcome {
  sample: Sample | null;
  skipped: string | null;
  category: SkipCategory | null;
}

export class JudgePipeline {
  private readonly recipe: Recipe;
  private readonly voter: TurnVoter;
  private readonly teacher: TeacherScorer;
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
  private readonly episodes: EpisodeBook<JudgementRecord>;
  private readonly episodeSweep: NodeJS.Timeout;
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
    this.voter = new TurnVoter({
      client,
      bus: deps.bus,
      signal: this.shutdown.signal,
      turnRetries: deps.turnRetries ?? 1,
      turnRetryDelayMs: deps.turnRetryDelayMs ?? 30_000,
    });
    this.teacher = new TeacherScorer({
      engine: deps.judge,
      template: deps.policyTemplate,
      tokenizer: deps.policyTokenizer,
      limiter,
      settings,
      topk: deps.recipe.method === "opd" ? deps.recipe.opd.topk : 0,
      temperature: teacherTemperature(deps.recipe),
      window: judge.concurrency,
      signal: this.shutdown.signal,
    });
    this.records = new JudgementRecords(deps.recordsDir);
    this.ledger = new TurnLedger(deps.recipe.proxy.max_sessions);
    this.maxJudging = 2 * judge.concurrency;
    const episodes = deps.recipe.episodes;
    this.episodes = new EpisodeBook({
      samplesPerTask: episodes.samples_per_task,
      prmStepCoef: episodes.prm_step_coef,
      groupTimeoutMs: episodes.group_timeout_s * 1000,
      onGroup: (group) => this.track(this.storeGroup(group)),
    });
    this.episodeSweep = setInterval(() => this.episodes.sweep(), Math.min(60_000, episodes.group_timeout_s * 250));
    this.episodeSweep.unref();
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.type === "turn-end" && event.turnType === "main") {
        if (event.finishReason === "abort") this.ledger.noteAborted(event.sessionId, event.turn);
        else this.ledger.noteOpen(event.sessionId, event.turn);
      }
      if (event.type === "episode-end") this.episodes.ended({ episodeId: event.episodeId, groupId: event.groupId, score: event.score, failure: event.failure, steps: event.steps });
      followVersionEvent(this.versions, event); // (a reset: slime restarted, its versions count from 0 again)
    });
  }

  /** Starts judging a closed turn in the background; never throws. */
  onTurnClosed(turn: ClosedTurn): void {
    try {
      if (this.closed) return;
      const entry = this.ledger.entry(turn.sessionId, turn.turn);
      if (entry && entry.state !== "open") return; // closed twice: judged once
      if (isStep(turn)) this.episodes.stepClosed(turn);
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
    clearInterval(this.episodeSweep);
    this.episodes.flush(); // (finished episodes of incomplete groups are trained as they are; see EpisodeBook.flush)
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
    if (this.refusal(turn) !== null) return false;
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
  private start(turn: ClosedTurn, outcome: Outcome | null): void {
    this.judging++;
    const judged = isStep(turn) ? this.judgeStep(turn, outcome) : this.judgeTurn(turn, outcome);
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
  private staleOutcome(turn: ClosedTurn): Outcome | null {
    const reason = this.staleness.staleReason(turn.weightVersions.map((span) => span.version));
    if (reason === null) return null;
    return {
      sample: null,
      skipped: `stale before judging: ${reason} (its sample would not be delivered)`,
      category: "stale",
    };
  }

  private newRecord(turn: ClosedTurn, explicit: ExplicitFeedback | null): JudgementRecord {
    return {
      version: JUDGEMENT_RECORD_VERSION,
      at: Date.now(),
      sessionId: turn.sessionId,
      turn: turn.turn,
      method: this.recipe.method,
      attempt: 1,
      closedBy: turn.closedBy,
      nextStateRole: turn.nextState?.role ?? null,
      explicit,
      evaluation: null,
      hint: null,
      teacher: null,
      evalScore: null,
      sample: null,
      skipped: null,
    };
  }

  /**
   * The turn's judgement record written and announced, with the sample it made or why none; the ledger told first
   * (a step's was told when it was judged), so that feedback following the announcement finds the turn judged.
   */
  private async settle(turn: ClosedTurn, record: JudgementRecord, outcome: Outcome): Promise<void> {
    record.at = Date.now();
    record.sample = outcome.sample
      ? { id: outcome.sample.id, kind: outcome.sample.kind, reward: outcome.sample.reward, why: outcome.sample.why, masked: outcome.sample.lossMask.every((bit) => bit === 0) }
      : null;
    record.skipped = outcome.skipped;
    await this.records.write(record).catch((error: unknown) => this.reportError("INTERNAL", `cannot write the judgement record: ${(error as Error).message}`));
    if (!isStep(turn)) this.ledger.noteJudged(turn, outcome.sample?.id ?? null);
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

  /**
   * A step of an episode: its step score (the mean of the judge's valid votes on it, from its next state), held in the
   * episode book; its sample is made when its task group is settled (storeGroup).
   */
  private async judgeStep(turn: ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> }, decided: Outcome | null): Promise<void> {
    const record = this.newRecord(turn, null);
    const unusable = (decided ?? this.refusal(turn, record))?.skipped ?? null;
    let stepScore: number | null = null;
    if (unusable === null && turn.nextState !== null) {
      const { evalVotes, attempts } = await this.voter.collect(turn, true, false);
      record.attempt = attempts;
      if (evalVotes) {
        const tally = tallyEvalVotes(evalVotes);
        stepScore = stepScoreOf(evalVotes.map((vote) => vote.score));
        record.evaluation = { votes: evalVotes.map((vote) => recordVote(vote, false)), score: stepScore, valid: tally.valid, failed: tally.failed, counts: tally.counts };
      }
    }
    record.evalScore = stepScore;
    this.ledger.noteJudged(turn, null);
    this.episodes.stepJudged({ turn, stepScore, unusable, carried: record });
  }

  /** A settled task group: one sample per trainable step (reward r_t, the standardised advantage), records, events. */
  private async storeGroup(group: SettledGroup<JudgementRecord>): Promise<void> {
    for (const step of group.steps) {
      const record = step.carried;
      record.episode = {
        id: step.turn.episode.id,
        groupId: group.groupId,
        stepIndex: step.stepIndex,
        stepScore: step.stepScore,
        ...(step.trainable ? { outcome: step.outcome, reward: step.reward, advantage: step.advantage, trained: step.trained } : { outcome: null, reward: null, advantage: null, trained: false }),
        ...(group.partial ? { partialGroup: group.partial } : {}),
      };
      const category = (record.gate?.category as SkipCategory | undefined) ?? "invalid-turn";
      await this.settle(step.turn, record, step.trainable ? await this.storeStep(step) : { sample: null, skipped: step.reason, category });
    }
  }

  private async storeStep(step: Extract<SettledStep<JudgementRecord>, { trainable: true }>): Promise<Outcome> {
    const score = (value: number | null) => (value === null ? "none" : value.toFixed(3));
    const why = `episode step ${step.stepIndex}: outcome ${score(step.outcome)} + ${this.recipe.episodes.prm_step_coef}·step score ${score(step.stepScore)} = ${score(step.reward)}, advantage ${score(step.advantage)}${step.trained ? "" : " (constant bucket: masked)"}`;
    const built = buildSample({
      turn: step.turn,
      decision: { make: true, kind: "rl", reward: step.reward, teacher: "none", masked: !step.trained, promoted: false, why },
      teacher: null,
      evalScore: step.stepScore,
      now: Date.now(),
    });
    if (!built.ok) return { sample: null, skipped: built.reason, category: "invalid-turn" };
    const sample = built.sample;
    sample.advantage = step.advantage;
    sample.episode = { episodeId: step.turn.episode.id, groupId: step.turn.episode.groupId, stepIndex: step.stepIndex, stepScore: step.stepScore, outcome: step.outcome };
    try {
      await this.deps.sink.put(sample);
    } catch (error) {
      this.reportError("INTERNAL", `sample ${sample.id} was not stored: ${(error as Error).message}`);
      return { sample: null, skipped: `the sink did not store the sample: ${(error as Error).message}`, category: "sink-failed" };
    }
    return { sample, skipped: null, category: null };
  }

  private async judgeTurn(turn: ClosedTurn, decided: Outcome | null): Promise<void> {
    const explicit = this.explicitFeedback(turn);
    const record = this.newRecord(turn, explicit);
    const outcome = decided ?? (await this.decideAndBuild(turn, explicit, record));
    await this.settle(turn, record, outcome);
    // Feedback that arrived while this turn was being judged: use it now if no sample was made.
    const entry = this.ledger.entry(turn.sessionId, turn.turn);
    if (!outcome.sample && entry?.held && !this.closed) this.launch(turn);
  }

  /**
   * Why a turn can never be trained, as the outcome to record (null when it can): it is unusable (aborted, empty, its
   * log-probs or versions do not fit), or the sample gate refuses it (then `record`, when given, says why).
   */
  private refusal(turn: ClosedTurn, record?: JudgementRecord): Outcome | null {
    const unusable = unusableTurnReason(turn);
    if (unusable) return { sample: null, skipped: unusable, category: turn.finishReason === "abort" ? "aborted" : turn.responseIds.length === 0 ? "empty-response" : "invalid-turn" };
    const gate = gateTurn(turn, this.recipe.training.sample_gate);
    if (gate.pass) return null;
    if (record) record.gate = { category: gate.category, reason: gate.reason };
    return { sample: null, skipped: `sample gate: ${gate.reason}`, category: gate.category };
  }

  private async decideAndBuild(turn: ClosedTurn, explicit: ExplicitFeedback | null, record: JudgementRecord): Promise<Outcome> {
    const refused = this.refusal(turn, record);
    if (refused) return refused;

    const method = this.recipe.method;
    const hasNextState = turn.nextState !== null;
    const needEval = METHOD_NEEDS[method].evaluation && explicit?.score == null && hasNextState;
    const needHint = METHOD_NEEDS[method].hint && explicit?.hint == null && hasNextState;
    const { evalVotes, hintVotes, attempts } = await this.voter.collect(turn, needEval, needHint);
    record.attempt = attempts;

    const tally = evalVotes ? tallyEvalVotes(evalVotes) : null;
    const choice = hintVotes ? chooseHint(hintVotes, this.recipe.opd.min_hint_chars) : null;
    if (tally) record.evaluation = { votes: evalVotes!.map((vote) => recordVote(vote, false)), score: tally.allFailed ? null : tally.score, valid: tally.valid, failed: tally.failed, counts: tally.counts };
    if (choice) record.hint = { votes: hintVotes!.map((vote) => recordVote(vote, true)), kept: choice.hint, fromVote: choice.fromVote, reason: choice.reason };
    const evalScore = explicit?.score ?? (tally && !tally.allFailed ? tally.score : null);
    record.evalScore = evalScore;

    const signals: JudgedSignals = {
      method,
      hasNextState,
      evalScore,
      evalSource: explicit?.score != null ? "explicit" : tally && !tally.allFailed ? "votes" : null,
      evalFailed: tally?.allFailed ?? false,
      evalDetail: tally ? describeTally(tally, evalVotes!.length) : "",
      hint: explicit?.hint ?? choice?.hint ?? null,
      hintSource: explicit?.hint ? "explicit" : choice?.hint ? "votes" : null,
      hintFailed: choice?.allFailed ?? false,
      hintReason: choice?.reason ?? null,
      sessionHasEffectiveSample: this.ledger.hasEffectiveSample(turn.sessionId),
    };
    const decision = decideSample(signals);
    if (!decision.make) {
      const judgeFailed = decision.category === "judge-failed";
      if (judgeFailed && this.shutdown.signal.aborted) return { sample: null, skipped: `shutdown before the judge answered (${decision.reason})`, category: "judge-failed" };
      if (judgeFailed) this.reportError("JUDGE_FAILED", `${turn.sessionId}:${turn.turn}: ${decision.reason} after ${attempts} attempt(s); no sample (never trained as neutral)`);
      return { sample: null, skipped: decision.reason, category: decision.category };
    }
    // (counted now, so that a turn of the session judged meanwhile sees it; taken back below if no sample is stored)
    const effective = METHOD_NEEDS[method].firstTurnGuarantee && !decision.masked;
    if (effective) this.ledger.markEffective(turn.sessionId);

    let teacher: TeacherOutcome | null = null;
    if (decision.teacher === "engine") {
      teacher = await this.teacher.score(
        { messages: turn.messages, tools: turn.tools, templateKwargs: turn.templateKwargs, promptIds: turn.promptIds, responseIds: turn.responseIds },
        signals.hint!,
      );
      record.teacher = {
        ok: teacher.ok,
        reason: teacher.ok ? null : teacher.reason,
        promptLength: teacher.promptLength,
        logprobStartLen: teacher.logprobStartLen,
        topk: this.teacher.topk,
        promptReproduced: teacher.ok ? teacher.promptReproduced : null,
        temperature: teacher.temperature,
        scoring: teacher.scoring,
        requests: teacher.requests,
      };
      if (!teacher.ok) {
        this.reportError("JUDGE_FAILED", `${turn.sessionId}:${turn.turn}: teacher scoring rejected: ${teacher.reason}`);
        return { sample: null, skipped: `teacher scoring rejected: ${teacher.reason}`, category: "teacher-failed" };
      }
    }
    const built = buildSample({ turn, decision, teacher: teacher?.ok ? teacher.values : null, evalScore, now: Date.now() });
    if (!built.ok) {
      if (effective) this.ledger.unmarkEffective(turn.sessionId);
      return { sample: null, skipped: built.reason, category: "invalid-turn" };
    }
    try {
      await this.deps.sink.put(built.sample);
    } catch (error) {
      if (effective) this.ledger.unmarkEffective(turn.sessionId);
      this.reportError("INTERNAL", `sample ${built.sample.id} was not stored: ${(error as Error).message}`);
      return { sample: null, skipped: `the sink did not store the sample: ${(error as Error).message}`, category: "sink-failed" };
    }
    return { sample: built.sample, skipped: null, category: null };
  }

  /** Endpoint feedback held for the turn, else a next state that is plainly 👍 / 👎. */
  private explicitFeedback(turn: ClosedTurn): ExplicitFeedback | null {
    const held = this.ledger.takeHeld(turn.sessionId, turn.turn);
    if (held && (held.score !== null || held.hint !== null)) {
      if (held.score === null && turn.nextState?.role === "user") {
        const detected = detectExplicitScore(turn.nextState.text);
        if (detected !== null) return { ...held, score: detected };
      }
      return held;
    }
    if (turn.nextState?.role !== "user") return null;
    const score = detectExplicitScore(turn.nextState.text);
    return score === null ? null : { score, hint: null, source: "message" };
  }

  private reportError(code: "INTERNAL" | "JUDGE_FAILED", message: string): void {
    this.deps.bus.emit({ type: "error", source: "judge", code, message });
  }
}

function isStep(turn: ClosedTurn): turn is ClosedTurn & { episode: NonNullable<ClosedTurn["episode"]> } {
  return turn.episode !== undefined;
}

function recordVote(vote: Vote, withHint: boolean): RecordedVote {
  return { index: vote.index, score: vote.score, ...(withHint ? { hint: vote.hint } : {}), raw: vote.raw, error: vote.error, attempts: vote.attempts, ms: vote.ms };
}

/** Waits for the promises to settle, at most `ms`; clears its timer either way. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}
