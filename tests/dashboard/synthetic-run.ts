// Synthetic run events for dashboard tests: turns that start, end, close, get judged and become samples,
// batches every `batchSize` samples, weight updates after each batch, plus matching JSONL records.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { TurnRecord } from "../../orchestrator/records/turn-records.ts";
import type { EventBus } from "../../orchestrator/event-bus.ts";
import type { JudgementRecord, RecordedVote } from "../../orchestrator/records/judgement-records.ts";
import type { Method } from "../../contracts/recipe.ts";

export interface SyntheticRun {
  bus: EventBus;
  method: Method;
  batchSize: number;
  /** When set, each turn also gets a turns.jsonl and a judgements.jsonl record here. */
  recordsDir?: string;
  /** Deterministic pseudo-random source. */
  random: () => number;
  ready: number;
  rewards: number[];
  rolloutId: number;
  version: number;
}

export function createSyntheticRun(bus: EventBus, options: { method?: SyntheticRun["method"]; batchSize?: number; recordsDir?: string; seed?: number } = {}): SyntheticRun {
  let seed = options.seed ?? 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  return { bus, method: options.method ?? "combine", batchSize: options.batchSize ?? 16, recordsDir: options.recordsDir, random, ready: 0, rewards: [], rolloutId: 0, version: 0 };
}

/** One main turn through judging; `progress` (0..1) makes later turns more often positive (the agent learns). */
export function emitTurn(run: SyntheticRun, sessionId: string, turn: number, progress = 0): void {
  const { bus, random } = run;
  const ttftMs = 80 + Math.round(random() * 120);
  const totalMs = ttftMs + 400 + Math.round(random() * 1600);
  bus.emit({ type: "turn-start", sessionId, turn, turnType: "main", decidedBy: "openclaw-runtime-marker" });
  bus.emit({
    type: "turn-end", sessionId, turn, turnType: "main", finishReason: "stop", promptTokens: 1200 + turn * 40, responseTokens: 90 + Math.round(random() * 200),
    ttftMs, totalMs, weightVersions: [String(run.version)], continuedAfterAbort: 0,
  });
  bus.emit({ type: "turn-closed", sessionId, turn, closedBy: "next-request", nextStateRole: random() < 0.3 ? "tool" : "user" });
  const roll = random();
  const score = roll < 0.25 + 0.5 * progress ? 1 : roll < 0.75 ? -1 : 0;
  const hintAccepted = run.method === "binary" ? null : random() < 0.35 + 0.3 * progress;
  bus.emit({ type: "judge-vote", sessionId, turn, purpose: "eval", vote: score, ok: true });
  if (run.method !== "binary") bus.emit({ type: "judge-vote", sessionId, turn, purpose: "hint", vote: hintAccepted ? 1 : -1, ok: true });
  const keep = score !== 0 || hintAccepted === true;
  const reward = score;
  const why = keep ? (hintAccepted ? `combine: hint kept, eval ${score}` : `combine: eval ${score} of 1 vote`) : null;
  // as judging does it: the sample stored (sample-ready), then the turn's judgement announced
  if (keep) {
    run.ready += 1;
    run.rewards.push(reward);
    bus.emit({ type: "sample-ready", sampleId: `${sessionId}:${turn}`, sessionId, turn, kind: "rl", reward, ready: run.ready, batchSize: run.batchSize });
  }
  bus.emit({
    type: "turn-judged", sessionId, turn, method: run.method, score, hintAccepted,
    sample: keep ? { kind: hintAccepted ? "combined" : "rl", reward, why: why ?? "" } : null, skipped: keep ? null : "eval 0 and no hint",
  });
  if (run.recordsDir) writeRecords(run.recordsDir, sessionId, turn, score, hintAccepted, keep ? { id: `${sessionId}:${turn}`, kind: hintAccepted ? "combined" : "rl", reward, why: why ?? "", masked: false } : null);
  if (keep && run.ready >= run.batchSize) deliverBatch(run);
}

function deliverBatch(run: SyntheticRun): void {
  const rewards = run.rewards.splice(0, run.batchSize);
  const count = (value: number) => rewards.filter((reward) => reward === value).length;
  const meanReward = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  run.rolloutId += 1;
  run.ready -= rewards.length;
  run.bus.emit({
    type: "batch-delivered", rolloutId: run.rolloutId, batchId: `batch-${run.rolloutId}`, size: rewards.length, meanReward,
    evalScore: meanReward, counts: { positive: count(1), zero: count(0), negative: count(-1) },
    // each sample's moments, as the store records them: answered 3 s, closed 2 s and judged 1 s before the hand-out
    stages: rewards.map(() => ({ answeredAt: Date.now() - 3000, closedAt: Date.now() - 2000, judgedAt: Date.now() - 1000 })),
  });
  run.bus.emit({ type: "batch-acknowledged", rolloutId: run.rolloutId, batchId: `batch-${run.rolloutId}` }); // trained
  run.bus.emit({ type: "weights-update-start", fromVersion: String(run.version) });
  run.version += 1;
  run.bus.emit({ type: "weights-update-end", toVersion: String(run.version), durationMs: 3000 + Math.round(run.random() * 4000) });
}

/** Lines shaped exactly like the real writers' (TurnRecords and JudgementRecords in records/). */
function writeRecords(recordsDir: string, sessionId: string, turn: number, score: number, hintAccepted: boolean | null, sample: JudgementRecord["sample"]): void {
  const now = Date.now();
  const turnRecord: TurnRecord = {
    version: 1, session_id: sessionId, turn,
    messages: [
      { role: "system", content: "You are a helpful agent." },
      { role: "user", content: `Please summarise report ${turn} of ${sessionId}. My key is sk-live-should-never-show-1234567890.` },
    ],
    tools: null,
    response: { role: "assistant", content: `Here is the summary of report ${turn}.` },
    next_state: { role: "user", messages: [], text: score > 0 ? "thanks, perfect" : "no, that's the wrong report" },
    closed_by: "next-request", prompt_length: 300,
    prompt_ids: Array.from({ length: 300 }, (_, index) => index), response_ids: Array.from({ length: 90 }, (_, index) => index), response_log_probs: Array.from({ length: 90 }, () => -0.5),
    finish_reason: "stop", weight_versions: [{ version: "0", start: 0, end: 90 }],
    decided_by: { session: "openclaw-runtime-marker", turnType: "agent-conversation", reason: "synthetic" },
    approximate: false, started_at: now - 900, first_token_at: now - 800, ended_at: now,
  };
  const vote = (index: number, value: number, hint?: string): RecordedVote => ({ index, score: value, raw: `The user reacted. \\boxed{${value}}`, error: null, attempts: 1, ms: 40, ...(hint ? { hint } : {}) });
  const kept = hintAccepted ? `Check which report the user means before summarising (turn ${turn}).` : null;
  const judgement: JudgementRecord = {
    version: 1, at: now, sessionId, turn, method: "combine", attempt: 1, closedBy: "next-request", nextStateRole: "user", explicit: null,
    evaluation: { votes: [vote(0, score)], score, valid: 1, failed: 0, counts: { [String(score)]: 1 } },
    hint: hintAccepted === null ? null : { votes: [vote(0, hintAccepted ? 1 : -1, kept ?? undefined)], kept, fromVote: kept ? 0 : null, reason: kept ? null : "no positive hint vote" },
    teacher: null, evalScore: score, sample, skipped: sample ? null : "eval 0 and no hint",
  };
  appendFileSync(join(recordsDir, "turns.jsonl"), `${JSON.stringify(turnRecord)}\n`);
  appendFileSync(join(recordsDir, "judgements.jsonl"), `${JSON.stringify(judgement)}\n`);
}

export function emitEngines(bus: EventBus): void {
  bus.emit({ type: "engine-state", name: "policy", state: "ready", detail: "rehearsal stand-in · 127.0.0.1:30010" });
  bus.emit({ type: "engine-state", name: "judge", state: "ready", detail: "rehearsal stand-in · 127.0.0.1:30020" });
  bus.emit({ type: "engine-state", name: "trainer", state: "ready", detail: "rehearsal trainer · bridge connected" });
}
