// The bridge between the orchestrator and slime's rollout function: versioned JSON messages over loopback HTTP
// and the binary frame that carries token / log-prob arrays. Transport and storage live elsewhere.
import { z } from "zod";
import type { Sample, SampleEpisodeStep } from "./sample.ts";

export const BRIDGE_VERSION = 1 as const;

/** Env vars that carry the bridge address and token to slime's processes. */
export const BRIDGE_URL_ENV = "OPENCLAW_RL_BRIDGE";
export const BRIDGE_TOKEN_ENV = "OPENCLAW_RL_BRIDGE_TOKEN";

/** HTTP paths (POST, `Authorization: Bearer <token>`). */
export const BRIDGE_PATHS = {
  hello: "/v1/hello",
  batch: "/v1/batch",
  ack: "/v1/ack",
  progress: "/v1/progress",
  metrics: "/v1/metrics",
} as const;

/** Content type of a binary batch frame (a `batch-wait` answer is JSON). */
export const BATCH_FRAME_CONTENT_TYPE = "application/vnd.openclaw-rl.batch";

const version = z.literal(BRIDGE_VERSION);
const session = z.string().min(1).max(128).describe("Random id of one Python process; a new id means a new client.");
const rolloutId = z.number().int().min(0);

/** A bridge message: the protocol's version, its type and its own fields, nothing else (a breaking change is a new version). */
function message<Type extends string, Shape extends z.ZodRawShape>(type: Type, shape: Shape) {
  return z.object({ version, type: z.literal(type), ...shape }).strict();
}

export const helloMessageSchema = message("hello", {
  session,
  pid: z.number().int(),
  routers: z.object({ policy: z.string().nullable(), judge: z.string().nullable() }).strict(),
});
export type HelloMessage = z.infer<typeof helloMessageSchema>;

/**
 * The rollout function's latest hello as the orchestrator keeps it: the routers it announced (as on the wire:
 * "judge" is slime's PRM router), its pid, and when the hello came (ms since the epoch; the supervisor counts only a
 * hello said after a trainer started). What the orchestrator, the supervisor and `start` pass around.
 */
export interface BridgeHello {
  routers: HelloMessage["routers"];
  pid: number;
  at: number;
}

export const batchRequestSchema = message("batch-request", {
  session,
  rolloutId,
  size: z.number().int().min(1).max(100_000),
  waitMs: z.number().int().min(0).max(60_000).describe("Long-poll: how long the server may hold the request."),
  holding: z
    .array(z.string().min(1))
    .max(64)
    .optional()
    .describe(
      "Batches this client handed to the trainer and has not acknowledged yet (not yet provably trained): they stay out. Any other unacknowledged batch of this session goes back to ready (its answer was lost).",
    ),
});
export type BatchRequest = z.infer<typeof batchRequestSchema>;

export const batchWaitSchema = message("batch-wait", {
  ready: z.number().int(),
  size: z.number().int(),
  paused: z.boolean().optional().describe("Training is paused (evaluation.stop_if_worse): no batch until it is resumed, however many samples are ready."),
});
export type BatchWait = z.infer<typeof batchWaitSchema>;

export const ackMessageSchema = message("ack", { session, rolloutId, batchId: z.string().min(1) });
export type AckMessage = z.infer<typeof ackMessageSchema>;

export const ackReplySchema = message("ack-ok", { batchId: z.string(), already: z.boolean() });
export type AckReply = z.infer<typeof ackReplySchema>;

export const progressMessageSchema = message("progress", {
  session,
  rolloutId,
  ready: z.number().int().min(0),
  size: z.number().int().min(1),
  waitedMs: z.number().min(0),
});
export type ProgressMessage = z.infer<typeof progressMessageSchema>;

/**
 * One training step's metrics, as slime's Megatron trainer logged them (keys without the `train/` prefix: loss,
 * pg_loss, grad_norm, lr-pg_0, train_rollout_logprob_abs_diff, ...), sent by native/openclaw_rl/trainer_metrics.py.
 */
export const trainerMetricsMessageSchema = message("trainer-metrics", {
  session,
  pid: z.number().int(),
  step: z.number().int().min(0).describe("slime's train/step: rollout_id × steps per rollout + step."),
  metrics: z
    .record(z.string().min(1).max(128), z.number().finite())
    .refine((metrics) => Object.keys(metrics).length <= 256, "at most 256 metrics")
    .describe("Every finite number of the step's train/* log dict, without the prefix."),
});
export type TrainerMetricsMessage = z.infer<typeof trainerMetricsMessageSchema>;

export const helloReplySchema = message("hello-ok", { currentVersion: z.number() });
export type HelloReply = z.infer<typeof helloReplySchema>;

/** Error answer of every endpoint (4xx/5xx). */
export interface BridgeErrorReply {
  version: typeof BRIDGE_VERSION;
  type: "error";
  code: string;
  message: string;
}

// ---- binary frames ----------------------------------------------------------------------------------------
//
// A frame is: magic (4 ASCII bytes) | u32 LE header byte length | UTF-8 JSON header | zero padding to a multiple
// of 8 | data section. Every array is a block of the data section described in the header by
// { dtype, offset (bytes from the data section start, a multiple of 4), count }, little-endian.
// A stored sample record uses magic "OCS1"; a batch uses "OCB1" and its data section is the samples' data
// sections laid end to end (each sample's block offsets are rebased onto the batch data section).

export const SAMPLE_FRAME_MAGIC = "OCS1";
export const BATCH_FRAME_MAGIC = "OCB1";

export type BlockDtype = "int32" | "float32";

export interface BlockRef {
  dtype: BlockDtype;
  offset: number;
  count: number;
}

export type SampleBlockName =
  | "tokens"
  | "lossMask"
  | "rolloutLogProbs"
  | "teacherLogProbs"
  | "teacherTopkLogProbs"
  | "teacherTopkIndices"
  | "teacherTokens"
  | "hintCandidateTokens";

/** The JSON part of one sample in a frame (everything but the arrays). */
export interface SampleFrameHeader {
  id: string;
  seq: number; // store sequence number: unique, increasing; becomes slime's index and group_index
  sessionId: string;
  turn: number;
  kind: string;
  responseLength: number;
  reward: number;
  evalScore: number | null;
  status: "completed" | "truncated";
  why: string;
  approximate: boolean;
  createdAt: number;
  /** The turn's answer and close (ms epoch): with createdAt, the stages of its learning latency. */
  answeredAt?: number;
  closedAt?: number;
  /** Run-length encoded per-token weight versions: [[version, count], ...]. */
  weightVersions: Array<[string, number]>;
  /** The advantage to train with where it is not `reward` (an episode step's standardised reward). */
  advantage?: number;
  /** An episode step: which one, and its reward's parts. */
  episode?: SampleEpisodeStep;
  /** The sampling the response was drawn with (the trainer's metadata["sampling"]). */
  sampling?: Sample["sampling"];
  topk: number; // K of the top-K blocks, 0 when absent
  /** method hybrid: each hint candidate's length; hintCandidateTokens holds them end to end (their sum = its count). */
  candidateLengths?: number[];
  prompt?: string;
  response?: string;
  blocks: Partial<Record<SampleBlockName, BlockRef>>;
}

/** The JSON header of a batch frame. */
export interface BatchFrameHeader {
  version: typeof BRIDGE_VERSION;
  type: "batch";
  batchId: string;
  rolloutId: number;
  currentVersion: number;
  /** Fill rules applied by the orchestrator so teacher fields are on every sample or none (see docs/bridge.md). */
  filled: { teacherFromRollout: number; topkOmitted: number };
  metrics: Record<string, number>;
  samples: SampleFrameHeader[];
}
