// Builds the binary batch frame from stored sample frames: rebases block offsets, applies the teacher
// all-or-none rule (slime reads teacher fields from sample 0 only) and computes the batch metrics.
import { BATCH_FRAME_MAGIC, BRIDGE_VERSION, SAMPLE_FRAME_MAGIC, type BatchFrameHeader, type SampleFrameHeader } from "../../contracts/bridge.ts";
import type { SampleStages } from "../../contracts/sample.ts";
import type { StalenessPolicy } from "../weights/staleness-policy.ts";
import { buildFrame, parseFrame } from "../store/sample-frame.ts";
import type { DeliveredBatch } from "../store/sample-store.ts";

export interface BatchSummary {
  meanReward: number;
  evalScore: number | null;
  counts: { positive: number; zero: number; negative: number };
  /** Each sample's answer, close and judging moments, for those that recorded them (the learning latency's first stages). */
  stages: SampleStages[];
}

/**
 * The teacher rule, applied here and only here:
 * - if any sample has teacherLogProbs or teacherTokens (opd.teacher trainer), the ones with neither get their rollout
 *   log-probs as teacher (the reference's RL-only rule for combine: teacher − old ≈ 0, so only the reward term drives
 *   them); the block points at the same bytes, nothing is copied; a sample with teacherTokens gets its teacher
 *   log-probs from the trainer;
 * - top-K blocks go out only when every sample has them with the same K; otherwise they are left off every
 *   sample and counted in `filled.topkOmitted` (the top-K loss then refuses the batch with a clear error).
 */
export function assembleBatchFrame(batch: DeliveredBatch, staleness: StalenessPolicy): { frame: Buffer; header: BatchFrameHeader; summary: BatchSummary } {
  const currentVersion = staleness.current(); // the header's version, and the one every sample's staleness is counted from
  const parsed = batch.frames.map((frame) => parseFrame<SampleFrameHeader>(frame, SAMPLE_FRAME_MAGIC));
  const anyTeacher = parsed.some(({ header }) => header.blocks.teacherLogProbs !== undefined || header.blocks.teacherTokens !== undefined);
  const topkValues = new Set(parsed.map(({ header }) => header.topk));
  const allTopk = topkValues.size === 1 && !topkValues.has(0);
  let teacherFromRollout = 0;
  let topkOmitted = 0;
  let base = 0;
  const samples: SampleFrameHeader[] = parsed.map(({ header, data }) => {
    const blocks = { ...header.blocks };
    if (anyTeacher && !blocks.teacherLogProbs && !blocks.teacherTokens && blocks.rolloutLogProbs) {
      blocks.teacherLogProbs = blocks.rolloutLogProbs;
      teacherFromRollout += 1;
    }
    let topk = header.topk;
    if (!allTopk && topk > 0) {
      delete blocks.teacherTopkLogProbs;
      delete blocks.teacherTopkIndices;
      topk = 0;
      topkOmitted += 1;
    }
    for (const [name, ref] of Object.entries(blocks)) {
      blocks[name as keyof typeof blocks] = { ...ref, offset: ref.offset + base };
    }
    base += data.length;
    return { ...header, topk, blocks };
  });
  const summary = summarize(samples);
  const behind = samples.map((sample) => staleness.stalenessOf(sample.weightVersions.map(([version]) => version), currentVersion));
  const metrics: Record<string, number> = {
    "openclaw/reward_mean": summary.meanReward,
    "openclaw/reward_positive": summary.counts.positive,
    "openclaw/reward_zero": summary.counts.zero,
    "openclaw/reward_negative": summary.counts.negative,
    "openclaw/staleness_max": Math.max(0, ...behind),
    "openclaw/staleness_mean": behind.reduce((sum, value) => sum + value, 0) / Math.max(1, behind.length),
    "openclaw/weight_version": currentVersion,
    "openclaw/teacher_filled_from_rollout": teacherFromRollout,
    "openclaw/teacher_topk_omitted": topkOmitted,
  };
  if (summary.evalScore !== null) metrics["rollout/prm_eval_score"] = summary.evalScore;
  const header: BatchFrameHeader = {
    version: BRIDGE_VERSION,
    type: "batch",
    batchId: batch.batchId,
    rolloutId: batch.rolloutId,
    currentVersion,
    filled: { teacherFromRollout, topkOmitted },
    metrics,
    samples,
  };
  return { frame: buildFrame(BATCH_FRAME_MAGIC, header, parsed.map(({ data }) => data)), header, summary };
}

function summarize(samples: SampleFrameHeader[]): BatchSummary {
  const counts = { positive: 0, zero: 0, negative: 0 };
  let total = 0;
  const evalScores: number[] = [];
  const stages: SampleStages[] = [];
  for (const sample of samples) {
    if (sample.answeredAt !== undefined && sample.closedAt !== undefined) stages.push({ answeredAt: sample.answeredAt, closedAt: sample.closedAt, judgedAt: sample.createdAt });
    total += sample.reward;
    if (sample.reward > 0) counts.positive += 1;
    else if (sample.reward < 0) counts.negative += 1;
    else counts.zero += 1;
    if (sample.evalScore !== null && sample.evalScore !== undefined) evalScores.push(sample.evalScore);
  }
  return {
    meanReward: samples.length > 0 ? total / samples.length : 0,
    evalScore: evalScores.length > 0 ? evalScores.reduce((sum, value) => sum + value, 0) / evalScores.length : null,
    counts,
    stages,
  };
}
