// Test harness for the judge pipeline: Qwen3's real template and tokenizer, a scripted judge Responder behind the
// SGLang stand-in (real wire shapes), closed turns built token-exactly, and waiting on turn-judged events.
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChatMessage } from "../../contracts/chat.ts";
import { recipeSchema, type RecipeInput } from "../../contracts/recipe.ts";
import type { Sample, SampleKind } from "../../contracts/sample.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn, NextState } from "../../contracts/turn.ts";
import type { RunEvent, SkipCategory } from "../../contracts/events.ts";
import type { GenerateRequest } from "../../contracts/sglang.ts";
import { StandinSglangServer } from "../../rehearsal/sglang/server.ts";
import type { Responder, ResponderRequest, ScoreRequest } from "../../rehearsal/model/responder.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { HINT_HEADER } from "../../orchestrator/judging/hinted-prompt.ts";
import { JudgePipeline, type JudgePipelineDeps } from "../../orchestrator/judging/judge-pipeline.ts";
import { judgingFollows } from "../../orchestrator/judging/judge-thread-protocol.ts";
import { turnEndedNotice } from "../../orchestrator/judging/open-turns.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";

let qwenPromise: Promise<{ template: ChatTemplate; tokenizer: ModelTokenizer }> | null = null;
export function qwen3(): Promise<{ template: ChatTemplate; tokenizer: ModelTokenizer }> {
  qwenPromise ??= loadTokenizerFiles("builtin:qwen3").then((files) => ({ template: new ChatTemplate(files), tokenizer: new ModelTokenizer(files) }));
  return qwenPromise;
}

export const FAIL = { fail: true } as const;
export const HANG = { hang: true } as const;
export type Answer = string | typeof FAIL | typeof HANG;

/** Teacher log-prob as a function of (position, token id): lets a test check which value belongs to which token. */
export function teacherValue(position: number, token: number): number {
  return -((position % 1000) / 1000 + (token % 100_000) / 1e8) - 0.001;
}

/**
 * The judge "model": answers are scripted per case marker (CASE-…) found in the prompt and per purpose, consumed
 * in arrival order; prefill scoring returns teacherValue(position, token) (log-probs at temperature 1: the server
 * takes per-position teacher requests to their temperature).
 */
export class ScriptedJudge implements Responder {
  readonly calls: Array<{ marker: string; purpose: "eval" | "hint"; request: ResponderRequest }> = [];
  readonly scored: ScoreRequest[] = [];
  /** Per-position teacher requests (temperature ≠ 1), in arrival order. */
  readonly sampled: ResponderRequest[] = [];
  private readonly scripts = new Map<string, Answer[]>();

  script(marker: string, purpose: "eval" | "hint", answers: Answer[]): void {
    this.scripts.set(`${marker}|${purpose}`, [...answers]);
  }

  callsFor(marker: string, purpose?: "eval" | "hint"): number {
    return this.calls.filter((call) => call.marker === marker && (!purpose || call.purpose === purpose)).length;
  }

  async reply(request: ResponderRequest): Promise<{ text: string }> {
    if (request.promptText.includes(HINT_HEADER)) {
      // a per-position teacher request (one new token after the hinted prompt): what it samples is not read
      this.sampled.push(request);
      return { text: "x" };
    }
    const purpose = request.promptText.includes("hindsight hints") ? "hint" : "eval";
    const marker = /CASE-[A-Za-z0-9-]+/.exec(request.promptText)?.[0] ?? "none";
    this.calls.push({ marker, purpose, request });
    const answers = this.scripts.get(`${marker}|${purpose}`);
    if (!answers || answers.length === 0) throw new Error(`no scripted answer left for ${marker} ${purpose}`);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (typeof answer === "string") return { text: answer };
    if ("fail" in answer) throw new Error("scripted judge failure");
    await new Promise((resolve) => setTimeout(resolve, 3000).unref());
    return { text: "\\boxed{1}" };
  }

  score(request: ScoreRequest): number[] {
    this.scored.push(request);
    return request.inputIds.map((token, position) => teacherValue(position, token));
  }
}

export class MemorySink implements SampleSink {
  readonly samples: Sample[] = [];
  async put(sample: Sample): Promise<PutOutcome> {
    this.samples.push(sample);
    return "stored";
  }
  async close(): Promise<void> {}
  byId(id: string): Sample | undefined {
    return this.samples.find((sample) => sample.id === id);
  }
}

export interface Harness {
  pipeline: JudgePipeline;
  judge: ScriptedJudge;
  server: StandinSglangServer;
  sink: MemorySink;
  bus: EventBus;
  /** The run's weight version the pipeline's staleness rule reads (a test moves it with observe and reset). */
  versions: WeightVersionTracker;
  recordsDir: string;
  template: ChatTemplate;
  tokenizer: ModelTokenizer;
  close(): Promise<void>;
  records(): Promise<Array<Record<string, any>>>;
  /** What judging did so far, counted from what it announced (events) and wrote (judgements.jsonl). */
  stats(): Promise<JudgingCounts>;
  /** Closes the turn and resolves with its turn-judged event. */
  judgeTurn(turn: ClosedTurn): Promise<Extract<RunEvent, { type: "turn-judged" }>>;
  nextJudged(sessionId: string, turn: number): Promise<Extract<RunEvent, { type: "turn-judged" }>>;
}

/** A judge client that keeps every /generate request it sends (then sends it as it is). */
export class RecordingClient extends SglangClient {
  readonly requests: GenerateRequest[] = [];
  override generate(request: GenerateRequest, options?: Parameters<SglangClient["generate"]>[1]): ReturnType<SglangClient["generate"]> {
    this.requests.push(structuredClone(request));
    return super.generate(request, options);
  }
}

/** A model other than Qwen3 for the policy and the judge (its template, tokenizer and end-of-turn token). */
export interface HarnessModel {
  template: ChatTemplate;
  tokenizer: ModelTokenizer;
  endOfTurn: string;
}

export async function startHarness(recipe: RecipeInput, overrides: Partial<JudgePipelineDeps> = {}, judgeClient: (url: string) => SglangClient = (url) => new SglangClient({ baseUrl: url }), model?: HarnessModel): Promise<Harness> {
  const { template, tokenizer } = model ?? (await qwen3());
  const judge = new ScriptedJudge();
  const server = new StandinSglangServer({ tokenizer, responder: judge, role: "judge", ...(model ? { eosTokenIds: [tokenizer.tokenId(model.endOfTurn)!] } : {}) });
  const { url } = await server.start();
  const bus = new EventBus();
  const sink = new MemorySink();
  const recordsDir = await mkdtemp(path.join(tmpdir(), "judge-test-"));
  const versions = new WeightVersionTracker();
  // the judge engine scores the teacher unless a test asks for the trainer's (unset, rehearsal would pick the trainer)
  const parsed = recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipe, opd: { teacher: "engine", ...(recipe.opd as object | undefined) } });
  const pipeline = new JudgePipeline({
    recipe: parsed,
    staleness: new StalenessPolicy(versions, parsed.training.max_staleness),
    judge: judgeClient(url),
    judgeTemplate: template,
    judgeTokenizer: tokenizer,
    policyTemplate: template,
    policyTokenizer: tokenizer,
    bus,
    sink,
    recordsDir,
    retryBackoffMs: 5,
    turnRetryDelayMs: 10,
    ...overrides,
  });
  followBus(pipeline, bus);
  const events: RunEvent[] = [];
  bus.subscribe((event) => void events.push(event));
  const nextJudged = (sessionId: string, turn: number) =>
    new Promise<Extract<RunEvent, { type: "turn-judged" }>>((resolve) => {
      const stop = bus.subscribe((event) => {
        if (event.type === "turn-judged" && event.sessionId === sessionId && event.turn === turn) {
          stop();
          resolve(event);
        }
      });
    });
  return {
    pipeline,
    judge,
    server,
    sink,
    bus,
    versions,
    recordsDir,
    template,
    tokenizer,
    nextJudged,
    judgeTurn(turn) {
      const judged = nextJudged(turn.sessionId, turn.turn);
      pipeline.onTurnClosed(turn);
      return judged;
    },
    records: () => readRecords(recordsDir),
    stats: async () => countJudging(events, await readRecords(recordsDir), pipeline.pending),
    async close() {
      await pipeline.drain(2000);
      await server.close();
    },
  };
}

/**
 * What the judging thread hands a pipeline from the proxy's bus, for a pipeline on this thread: every main turn-end
 * at once (the thread holds an open turn's until feedback needs it: the ledger ends the same) and the events it follows.
 */
export function followBus(pipeline: JudgePipeline, bus: EventBus): void {
  bus.subscribe((event) => {
    const notice = turnEndedNotice(event);
    if (notice) pipeline.turnEnded(notice);
    else if (judgingFollows(event)) pipeline.follow(event);
  });
}

export interface TurnSpec {
  sessionId?: string;
  turn?: number;
  marker: string;
  answer?: string;
  next?: string | null;
  nextRole?: "user" | "tool";
  finishReason?: ClosedTurn["finishReason"];
}

/** A closed turn rendered with Qwen3's template (or `model`'s): prompt ids, response ids (ending with the end of turn), log-probs, versions. */
export async function makeTurn(spec: TurnSpec, model?: HarnessModel): Promise<ClosedTurn> {
  const { template, tokenizer } = model ?? (await qwen3());
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: `[Sun 2026-11-22 06:25 UTC] ${spec.marker}: how far is 5 miles?` },
  ];
  const promptIds = await tokenizer.encode(template.render(messages, { addGenerationPrompt: true }));
  const content = spec.answer ?? `${spec.marker}: about 8 km.`;
  const responseIds = [...(await tokenizer.encode(`<think>\nConvert.\n</think>\n\n${content}`)), tokenizer.tokenId(model?.endOfTurn ?? "<|im_end|>")!];
  const next = spec.next === undefined ? "[Sun 2026-11-22 06:26 UTC] thanks, now 10 miles?" : spec.next;
  const role = spec.nextRole ?? "user";
  const nextState: NextState | null =
    next === null ? null : { role, messages: [role === "user" ? { role: "user", content: next } : { role: "tool", content: next, tool_call_id: "call_1" }], text: next };
  const half = Math.floor(responseIds.length / 2);
  return {
    version: 1,
    sessionId: spec.sessionId ?? `session-${spec.marker}`,
    turn: spec.turn ?? 0,
    decidedBy: { session: "header:x-session-id", turnType: "agent-conversation", reason: "test" },
    messages,
    tools: null,
    promptIds: Int32Array.from(promptIds),
    responseIds,
    responseLogProbs: responseIds.map((_, index) => -0.05 - index / 1000),
    response: { role: "assistant", content, reasoning_content: "Convert." },
    finishReason: spec.finishReason ?? "stop",
    weightVersions: [
      { version: "7", start: 0, end: half },
      { version: "8", start: half, end: responseIds.length },
    ],
    approximate: false,
    startedAt: 1,
    firstTokenAt: 2,
    endedAt: 3,
    nextState,
    closedBy: next === null ? "session-done" : "next-request",
  };
}

export interface JudgingCounts {
  turnsJudged: number;
  votes: number;
  votesFailed: number;
  judgeFailures: number;
  rewards: { positive: number; zero: number; negative: number };
  /** Hint vote sets that were answered (not all failed): kept a hint or not. */
  hints: { accepted: number; rejected: number };
  samples: Record<SampleKind, number>;
  masked: number;
  skipped: Partial<Record<SkipCategory, number>>;
  lastEvalScore: number | null;
  pending: number;
}

async function readRecords(recordsDir: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(path.join(recordsDir, "judgements.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** The counts a test reads, from the pipeline's events and judgement records (nothing in the pipeline keeps them). */
function countJudging(events: readonly RunEvent[], records: ReadonlyArray<Record<string, any>>, pending: number): JudgingCounts {
  const counts: JudgingCounts = { turnsJudged: 0, votes: 0, votesFailed: 0, judgeFailures: 0, rewards: { positive: 0, zero: 0, negative: 0 }, hints: { accepted: 0, rejected: 0 }, samples: { rl: 0, opd: 0, combined: 0, hybrid: 0 }, masked: 0, skipped: {}, lastEvalScore: null, pending };
  for (const event of events) {
    if (event.type === "judge-vote") {
      counts.votes += 1;
      if (!event.ok) counts.votesFailed += 1;
    }
    if (event.type !== "turn-judged") continue;
    counts.turnsJudged += 1;
    if (event.skipCategory) counts.skipped[event.skipCategory] = (counts.skipped[event.skipCategory] ?? 0) + 1;
    if (event.skipCategory === "judge-failed") counts.judgeFailures += 1;
    if (event.score !== null) counts.lastEvalScore = event.score;
    if (event.sample) {
      counts.samples[event.sample.kind] += 1;
      counts.rewards[event.sample.reward > 0 ? "positive" : event.sample.reward < 0 ? "negative" : "zero"] += 1;
    }
  }
  for (const record of records) {
    if (record.sample?.masked) counts.masked += 1;
    const votes = (record.hint?.votes ?? []) as Array<{ error: string | null }>;
    if (record.hint && votes.some((vote) => vote.error === null)) counts.hints[record.hint.kept !== null ? "accepted" : "rejected"] += 1;
  }
  return counts;
}
