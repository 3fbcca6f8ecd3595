// Encodes a Sample into the binary sample frame of contracts/bridge.ts (JSON header + LE int32/float32 blocks)
// and back. Knows nothing of files or HTTP; the store writes these frames and the bridge splices them.
import { OpenclawRlError } from "../../contracts/errors.ts";
import { SAMPLE_FRAME_MAGIC, type BlockDtype, type BlockRef, type SampleBlockName, type SampleFrameHeader } from "../../contracts/bridge.ts";
import { SAMPLE_VERSION, type Sample } from "../../contracts/sample.ts";
import { flattenRows, splitRows } from "../samples/topk-rows.ts";

/** A sample as the store accepts it: the contract record plus optional texts for slime's metrics. */
export type StorableSample = Sample & { prompt?: string; response?: string };

export interface DecodedFrame<Header> {
  header: Header;
  data: Buffer; // the data section (blocks)
}

const IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function padTo8(length: number): number {
  return (length + 7) & ~7;
}

/** magic | u32 header length | header JSON | zero padding to 8 | data. */
export function buildFrame(magic: string, header: unknown, blocks: Buffer[]): Buffer {
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.alloc(padTo8(8 + headerBytes.length));
  prefix.write(magic, 0, "ascii");
  prefix.writeUInt32LE(headerBytes.length, 4);
  headerBytes.copy(prefix, 8);
  return Buffer.concat([prefix, ...blocks]);
}

export function parseFrame<Header>(frame: Buffer, magic: string): DecodedFrame<Header> {
  if (frame.length < 8 || frame.toString("ascii", 0, 4) !== magic) {
    throw new OpenclawRlError("STORE_CORRUPT", `not a ${magic} frame`);
  }
  const headerLength = frame.readUInt32LE(4);
  if (8 + headerLength > frame.length) throw new OpenclawRlError("STORE_CORRUPT", `${magic} frame header overruns the frame`);
  const header = JSON.parse(frame.toString("utf8", 8, 8 + headerLength)) as Header;
  return { header, data: frame.subarray(padTo8(8 + headerLength)) };
}

function typedBytes(values: ArrayLike<number>, dtype: BlockDtype): Buffer {
  const array = dtype === "int32" ? Int32Array.from(values) : Float32Array.from(values);
  if (!IS_LITTLE_ENDIAN) throw new OpenclawRlError("INTERNAL", "big-endian hosts are not supported by the bridge frames");
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

function runLengths(versions: string[]): Array<[string, number]> {
  const runs: Array<[string, number]> = [];
  for (const version of versions) {
    const last = runs[runs.length - 1];
    if (last && last[0] === version) last[1] += 1;
    else runs.push([version, 1]);
  }
  return runs;
}

/** Checks the array lengths a trainer relies on; throws BAD_REQUEST naming the field. */
export function checkSampleShape(sample: Sample): void {
  const length = sample.responseLength;
  const problem = (field: string, detail: string) =>
    new OpenclawRlError("BAD_REQUEST", `sample ${sample.id}: ${field} ${detail}`, { path: field });
  if (!Number.isInteger(length) || length < 1) throw problem("responseLength", `must be a positive integer, got ${length}`);
  if (sample.tokens.length - length < 1) throw problem("tokens", `needs at least one prompt token (${sample.tokens.length} tokens, response ${length})`);
  if (sample.lossMask.length !== length) throw problem("lossMask", `has ${sample.lossMask.length} entries, expected ${length}`);
  if (sample.rolloutLogProbs.length !== length) throw problem("rolloutLogProbs", `has ${sample.rolloutLogProbs.length} entries, expected ${length}`);
  if (sample.teacherLogProbs && sample.teacherLogProbs.length !== length) {
    throw problem("teacherLogProbs", `has ${sample.teacherLogProbs.length} entries, expected ${length}`);
  }
  const topkLogProbs = sample.teacherTopkLogProbs;
  const topkIndices = sample.teacherTopkIndices;
  if ((topkLogProbs === undefined) !== (topkIndices === undefined)) throw problem("teacherTopkIndices", "and teacherTopkLogProbs must come together");
  if (topkLogProbs && topkIndices && (topkLogProbs.length !== length || topkIndices.length !== length)) {
    throw problem("teacherTopkLogProbs", `must have ${length} rows`);
  }
  const teacherTokens = sample.teacherTokens;
  if (teacherTokens) {
    if (sample.teacherLogProbs) throw problem("teacherTokens", "and teacherLogProbs exclude each other (the trainer computes the teacher's log-probs from teacherTokens)");
    if (teacherTokens.length - length < 1) throw problem("teacherTokens", `needs at least one hinted prompt token (${teacherTokens.length} tokens, response ${length})`);
    const tail = sample.tokens.length - length;
    for (let index = 0; index < length; index += 1) {
      if (teacherTokens[teacherTokens.length - length + index] !== sample.tokens[tail + index]) throw problem("teacherTokens", `must end with the response (token ${index} differs)`);
    }
  }
  checkHintCandidates(sample, problem);
}

function checkHintCandidates(sample: Sample, problem: (field: string, detail: string) => Error): void {
  const candidates = sample.hintCandidates;
  if (candidates === undefined) return;
  const length = sample.responseLength;
  if (candidates.length === 0) throw problem("hintCandidates", "must hold at least one candidate");
  if (sample.teacherLogProbs || sample.teacherTokens || sample.teacherTopkLogProbs) {
    throw problem("hintCandidates", "exclude teacherLogProbs, teacherTokens and teacherTopk* (the trainer's teacher computes the rows per candidate)");
  }
  const tail = sample.tokens.length - length;
  candidates.forEach((candidate, number) => {
    if (candidate.length - length < 1) throw problem("hintCandidates", `candidate ${number} needs at least one prompt token (${candidate.length} tokens, response ${length})`);
    for (let index = 0; index < length; index += 1) {
      if (candidate[candidate.length - length + index] !== sample.tokens[tail + index]) throw problem("hintCandidates", `candidate ${number} must end with the response (token ${index} differs)`);
    }
  });
}

/** The frame bytes of one sample, with `seq` as its store sequence number. */
export function encodeSample(sample: StorableSample, seq: number): Buffer {
  checkSampleShape(sample);
  const blocks: Buffer[] = [];
  const refs: Partial<Record<SampleBlockName, BlockRef>> = {};
  let offset = 0;
  const add = (name: SampleBlockName, values: ArrayLike<number>, dtype: BlockDtype) => {
    const bytes = typedBytes(values, dtype);
    refs[name] = { dtype, offset, count: values.length };
    blocks.push(bytes);
    offset += bytes.length;
  };
  add("tokens", sample.tokens, "int32");
  add("lossMask", sample.lossMask, "int32");
  add("rolloutLogProbs", sample.rolloutLogProbs, "float32");
  if (sample.teacherLogProbs) add("teacherLogProbs", sample.teacherLogProbs, "float32");
  if (sample.teacherTokens) add("teacherTokens", sample.teacherTokens, "int32");
  if (sample.hintCandidates) add("hintCandidateTokens", sample.hintCandidates.flat(), "int32");
  let topk = 0;
  if (sample.teacherTopkLogProbs && sample.teacherTopkIndices) {
    topk = sample.teacherTopkLogProbs[0]?.length ?? 0;
    add("teacherTopkLogProbs", flattenRows(sample.teacherTopkLogProbs, topk, "teacherTopkLogProbs"), "float32");
    add("teacherTopkIndices", flattenRows(sample.teacherTopkIndices, topk, "teacherTopkIndices"), "int32");
  }
  const header: SampleFrameHeader = {
    id: sample.id,
    seq,
    sessionId: sample.sessionId,
    turn: sample.turn,
    kind: sample.kind,
    responseLength: sample.responseLength,
    reward: sample.reward,
    evalScore: sample.evalScore ?? null,
    status: sample.status,
    why: sample.why,
    approximate: sample.approximate,
    createdAt: sample.createdAt,
    ...(sample.answeredAt === undefined ? {} : { answeredAt: sample.answeredAt }),
    ...(sample.closedAt === undefined ? {} : { closedAt: sample.closedAt }),
    weightVersions: runLengths(sample.weightVersions),
    ...(sample.advantage === undefined ? {} : { advantage: sample.advantage }),
    ...(sample.episode === undefined ? {} : { episode: sample.episode }),
    ...(sample.sampling === undefined ? {} : { sampling: sample.sampling }),
    topk,
    ...(sample.hintCandidates === undefined ? {} : { candidateLengths: sample.hintCandidates.map((candidate) => candidate.length) }),
    ...(sample.prompt === undefined ? {} : { prompt: sample.prompt }),
    ...(sample.response === undefined ? {} : { response: sample.response }),
    blocks: refs,
  };
  return buildFrame(SAMPLE_FRAME_MAGIC, header, blocks);
}

export function readBlock(data: Buffer, ref: BlockRef): number[] {
  const bytes = data.subarray(ref.offset, ref.offset + ref.count * 4);
  const copy = Buffer.from(bytes); // aligned copy for the typed view
  const view = ref.dtype === "int32" ? new Int32Array(copy.buffer, copy.byteOffset, ref.count) : new Float32Array(copy.buffer, copy.byteOffset, ref.count);
  return Array.from(view);
}

/** Back to a Sample record (float32 precision for log-probs). Used by tests, the bench baseline and tools. */
export function decodeSample(frame: Buffer): { sample: StorableSample; seq: number } {
  const { header, data } = parseFrame<SampleFrameHeader>(frame, SAMPLE_FRAME_MAGIC);
  const block = (name: SampleBlockName) => (header.blocks[name] ? readBlock(data, header.blocks[name]) : undefined);
  const sample: StorableSample = {
    version: SAMPLE_VERSION,
    id: header.id,
    sessionId: header.sessionId,
    turn: header.turn,
    kind: header.kind as Sample["kind"],
    tokens: block("tokens") ?? [],
    responseLength: header.responseLength,
    lossMask: block("lossMask") ?? [],
    rolloutLogProbs: block("rolloutLogProbs") ?? [],
    reward: header.reward,
    weightVersions: header.weightVersions.flatMap(([version, count]) => new Array<string>(count).fill(version)),
    status: header.status,
    why: header.why,
    approximate: header.approximate,
    createdAt: header.createdAt,
    evalScore: header.evalScore,
  };
  if (header.answeredAt !== undefined) sample.answeredAt = header.answeredAt;
  if (header.closedAt !== undefined) sample.closedAt = header.closedAt;
  if (header.advantage !== undefined) sample.advantage = header.advantage;
  if (header.episode !== undefined) sample.episode = header.episode;
  if (header.sampling !== undefined) sample.sampling = header.sampling;
  const teacher = block("teacherLogProbs");
  if (teacher) sample.teacherLogProbs = teacher;
  const teacherTokens = block("teacherTokens");
  if (teacherTokens) sample.teacherTokens = teacherTokens;
  const candidateTokens = block("hintCandidateTokens");
  if (candidateTokens && header.candidateLengths) {
    let start = 0;
    sample.hintCandidates = header.candidateLengths.map((length) => candidateTokens.slice(start, (start += length)));
  }
  const topkLogProbs = block("teacherTopkLogProbs");
  const topkIndices = block("teacherTopkIndices");
  if (topkLogProbs && topkIndices) {
    const split = (values: number[]) => splitRows(values, header.topk > 0 ? Math.ceil(values.length / header.topk) : 0, header.topk);
    sample.teacherTopkLogProbs = split(topkLogProbs);
    sample.teacherTopkIndices = split(topkIndices);
  }
  if (header.prompt !== undefined) sample.prompt = header.prompt;
  if (header.response !== undefined) sample.response = header.response;
  return { sample, seq: header.seq };
}
