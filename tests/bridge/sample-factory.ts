// Builds deterministic Sample records for store / bridge tests and the bench (sizes, teacher fields, rewards).
// Knows nothing of the store; values are chosen so float32 round trips are easy to check.
import { SAMPLE_VERSION, type Sample } from "../../contracts/sample.ts";

export interface SampleShape {
  promptLength?: number;
  responseLength?: number;
  teacher?: boolean;
  topk?: number;
  reward?: number;
  evalScore?: number | null;
  weightVersion?: string;
  kind?: Sample["kind"];
  /** An episode step: step index index % 3, advantage (index % 2 ? 1.5 : −0.5), reward o + p with o = ±1, p = 0.5. */
  episode?: boolean;
}

export function makeSample(index: number, shape: SampleShape = {}): Sample & { prompt: string; response: string } {
  const promptLength = shape.promptLength ?? 4;
  const responseLength = shape.responseLength ?? 3;
  const tokens = Array.from({ length: promptLength + responseLength }, (_, position) => (index * 1000 + position) % 150_000);
  const rolloutLogProbs = Array.from({ length: responseLength }, (_, position) => -((position % 7) + 1) / 8);
  const sample: Sample & { prompt: string; response: string } = {
    version: SAMPLE_VERSION,
    id: `session-${index}:${index}`,
    sessionId: `session-${index}`,
    turn: index,
    kind: shape.kind ?? (shape.teacher ? "opd" : "rl"),
    tokens,
    responseLength,
    lossMask: Array.from({ length: responseLength }, (_, position) => (position === 0 && index % 2 === 1 ? 0 : 1)),
    rolloutLogProbs,
    reward: shape.reward ?? [1, 0, -1][index % 3]!,
    weightVersions: new Array<string>(responseLength).fill(shape.weightVersion ?? "default"),
    status: index % 5 === 4 ? "truncated" : "completed",
    why: `test sample ${index}`,
    approximate: false,
    sampling: { temperature: 0.6, top_p: 1, top_k: -1 },
    createdAt: 1_700_000_000_000 + index,
    evalScore: shape.evalScore === undefined ? [1, 0, -1][index % 3]! : shape.evalScore,
    prompt: `prompt ${index}`,
    response: `response ${index}`,
  };
  if (shape.episode) {
    const outcome = index % 2 === 1 ? 1 : -1;
    sample.reward = outcome + 0.5;
    sample.advantage = index % 2 === 1 ? 1.5 : -0.5;
    sample.episode = { episodeId: `task:${index}:0:${index}`, groupId: `task:${index}:0`, stepIndex: index % 3, stepScore: 0.5, outcome };
  }
  if (shape.teacher) sample.teacherLogProbs = rolloutLogProbs.map((value) => value - 0.25);
  if (shape.topk && shape.topk > 0) {
    const k = shape.topk;
    sample.teacherTopkLogProbs = Array.from({ length: responseLength }, (_, row) => Array.from({ length: k }, (_, column) => -(column + 1) - row / 1024));
    sample.teacherTopkIndices = Array.from({ length: responseLength }, (_, row) => Array.from({ length: k }, (_, column) => (row * k + column) % 150_000));
  }
  return sample;
}
