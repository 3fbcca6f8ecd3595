// What a plan for `openclaw-rl eval --checkpoint` asks (which saved weights, the port, which GPUs are busy) and what
// it answers (the version, the weights, the server's process and URLs). Types only.
import type { PlanContext, ProcessSpec } from "../../contracts/plan.ts";

/** Whether a start of this run holds its planned GPUs now (then only the placement's idle GPUs are free). */
export interface GpuAvailability {
  startRunning: boolean;
}

export interface CheckpointServing {
  /** The weight version evaluated (the N of policy-vN.json or of the checkpoint's iteration; "0" for the base). */
  version: string;
  /** The saved weights served (a policy file or a Hugging Face folder); null for the stand-in's base weights. */
  checkpoint: string | null;
  spec: ProcessSpec;
  /** The server's base URL (OpenAI-compatible /v1/chat/completions under it) and its readiness endpoint. */
  url: string;
  readyUrl: string;
}

export interface CheckpointRequest {
  /** What --checkpoint named: rehearsal `vN`, `N`, `base` or a policy-vN.json; slime N, iter_NNNNNNN or its (converted) folder. */
  checkpoint: string;
  port: number;
  context: PlanContext;
  /** Which GPUs are busy (slime only): a checkpoint server takes the ones no running start holds. */
  gpus?: GpuAvailability;
}

