// method hybrid: a sample's hint candidates (each the hinted prompt's ids followed by the response's exact ids) travel
// in the sample frame as one hintCandidateTokens block cut by the header's candidateLengths, through the batch frame,
// and are cut back into the same candidates by the trainer's real decoder (native/openclaw_rl: decode_batch_frame and
// rollout.build_samples, which puts them into multimodal_train_inputs for the trainer's teacher).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { Sample } from "../../contracts/sample.ts";
import { assembleBatchFrame } from "../../orchestrator/bridge/batch-frame.ts";
import { decodeSample, encodeSample } from "../../orchestrator/store/sample-frame.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { makeSample } from "../bridge/sample-factory.ts";

// makeSample(1): tokens [1000 .. 1004], a 3-token response [1002, 1003, 1004]
const RESPONSE = [1002, 1003, 1004];
const CANDIDATES = [[1000, 9, 1001, ...RESPONSE], [1000, 9, 9, 9, 1001, ...RESPONSE], [7, ...RESPONSE]];

function sample(id: string, extra: Partial<Sample>): Sample {
  return { ...makeSample(1, { kind: "hybrid", promptLength: 2 }), id, ...extra };
}

const DECODE = `
import json, sys
sys.path.insert(0, "native")
from openclaw_rl.batch_frame import decode_batch_frame
from openclaw_rl.rollout import build_samples
from openclaw_rl.teacher_carriage import CANDIDATES_KEY
samples = build_samples(decode_batch_frame(bytearray(open(sys.argv[1], "rb").read())))
print(json.dumps([[ids.tolist() for ids in s.multimodal_train_inputs[CANDIDATES_KEY]] for s in samples]))
`;

describe("hint candidates in frames", () => {
  it("round-trip through the sample frame, in order, with candidateLengths in the header", () => {
    const frame = encodeSample(sample("a", { hintCandidates: CANDIDATES }), 1);
    expect(decodeSample(frame).sample.hintCandidates).toEqual(CANDIDATES);
    expect(decodeSample(encodeSample(sample("b", {}), 2)).sample.hintCandidates).toBeUndefined();
  });

  it("are refused when a candidate does not end with the response, has no prompt, or comes with teacher values", () => {
    expect(() => encodeSample(sample("c", { hintCandidates: [[1, 2, 1003, 6]] }), 1)).toThrow(/candidate 0 must end with the response/);
    expect(() => encodeSample(sample("d", { hintCandidates: [[1, ...RESPONSE], RESPONSE] }), 1)).toThrow(/candidate 1 needs at least one prompt token/);
    expect(() => encodeSample(sample("e", { hintCandidates: [] }), 1)).toThrow(/at least one candidate/);
    expect(() => encodeSample(sample("f", { hintCandidates: [[9, ...RESPONSE]], teacherLogProbs: [-1, -1, -1] }), 1)).toThrow(/exclude teacherLogProbs/);
  });

  it("reach the trainer's decoder as the same ids, per sample", async () => {
    const frames = [encodeSample(sample("g", { hintCandidates: CANDIDATES }), 1), encodeSample(sample("h", { hintCandidates: [[8, 8, ...RESPONSE]] }), 2)];
    const { frame, header } = assembleBatchFrame({ batchId: "b1", rolloutId: 0, seqs: [1, 2], frames }, new StalenessPolicy({ current: () => 0 }, 100));
    expect(header.samples.map((entry) => entry.candidateLengths)).toEqual([[6, 8, 4], [5]]);
    expect(header.filled).toEqual({ teacherFromRollout: 0, topkOmitted: 0 });
    const folder = await mkdtemp(join(tmpdir(), "hint-candidates-"));
    try {
      await writeFile(join(folder, "batch.bin"), frame);
      const result = await execa("/usr/bin/python3", ["-c", DECODE, join(folder, "batch.bin")], { timeout: 120_000 });
      expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toEqual([CANDIDATES, [[8, 8, ...RESPONSE]]]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
